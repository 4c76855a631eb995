package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// target is one row of the summary table that opens docs/BENCHMARKS.md: a
// figure an issue sets, what this run measured, and the baseline measured
// beside it in the same run. A section that measures such a figure builds
// one and hands it to report.add; its own detailed table stays in its
// section.
//
//	rep.add(target{Issue: 31, What: "`git-contextfs --version`", Goal: "≤ 10 ms wall",
//		Wall: wall, CPU: cpu, Baseline: "`git --version` " + ms(gitWall),
//		Met: wall <= 10*time.Millisecond})
type target struct {
	// Issue is the number of the issue that sets the target.
	Issue int
	// What is what is measured, in Markdown: "`git-contextfs --version`".
	What string
	// Goal is the target as the issue words it: "≤ 10 ms wall".
	Goal string
	// Wall is the measured wall-clock p50; 0 when Value is given instead.
	Wall time.Duration
	// CPU is the measured CPU time p50 (user + system, from getrusage);
	// 0 when not measured. Machines are shared: CPU moves less with the
	// load than wall time does.
	CPU time.Duration
	// Value is the measured figure when it is not a wall time
	// ("1.3 GB peak RSS", "MRR@10 0.61"); it is shown instead of Wall.
	Value string
	// Baseline is the baseline measured in the same run, named, with its
	// figure: "`git --version` 1.2 ms".
	Baseline string
	// Met says whether the measured figure meets Goal.
	Met bool
	// Reported marks a figure the issue asks only to be reported, with no
	// bound: the row has no verdict and Met is ignored.
	Reported bool
	// Note is what a reader needs to judge the row, briefly: the method
	// when the What does not say it, or why the verdict differs from what
	// the wall column suggests.
	Note string
}

// report collects the summary rows of one run, in the order they were
// added, and how long each section took.
type report struct {
	rows     []target
	sections []sectionTime
}

// sectionTime is how long one section of the run took.
type sectionTime struct {
	name string
	took time.Duration
}

// add appends a summary row.
func (r *report) add(t target) { r.rows = append(r.rows, t) }

// fail appends a row saying that the section name failed with err, so
// that the summary shows why its targets are missing.
func (r *report) fail(name string, err error) {
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	r.rows = append(r.rows, target{What: "the " + name + " section (its targets are missing)", Goal: "runs to the end",
		Value: "failed", Note: msg})
}

// writeSummary writes the summary table.
func (r *report) writeSummary(w io.Writer) {
	fmt.Fprintln(w, "## Targets")
	fmt.Fprintln(w)
	if len(r.rows) == 0 {
		fmt.Fprintln(w, "No section of this run measures a target.")
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintln(w, "Every target the issues set that this run measures, with the baseline measured beside it in the same run; the sections below give the method and the full figures. Wall and CPU are medians (p50); CPU is user + system time from getrusage, which moves less than wall time when the machine is busy (see the load averages above). A target on a quiet machine that is missed on wall time but met on CPU says so in its note.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| issue | measured | target | wall p50 | CPU p50 | baseline (same run) | verdict |")
	fmt.Fprintln(w, "| ---: | --- | --- | ---: | ---: | --- | --- |")
	for _, t := range r.rows {
		value := t.Value
		if value == "" && t.Wall > 0 {
			value = ms(t.Wall)
		}
		cpu := ""
		if t.CPU > 0 {
			cpu = ms(t.CPU)
		}
		verdict := "**not met**"
		switch {
		case t.Reported:
			verdict = "reported"
		case t.Met:
			verdict = "met"
		}
		if t.Note != "" {
			verdict += ": " + t.Note
		}
		issue := ""
		if t.Issue > 0 {
			issue = "#" + strconv.Itoa(t.Issue)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", issue, cell(t.What), cell(t.Goal), cell(value), cpu, cell(t.Baseline), cell(verdict))
	}
	fmt.Fprintln(w)
}

// writeSections writes how long each section took.
func (r *report) writeSections(w io.Writer, total time.Duration) {
	fmt.Fprintln(w, "## This run")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| section | took |")
	fmt.Fprintln(w, "| --- | ---: |")
	for _, s := range r.sections {
		fmt.Fprintf(w, "| %s | %s |\n", s.name, s.took.Round(time.Second))
	}
	fmt.Fprintf(w, "| all | %s |\n", total.Round(time.Second))
	fmt.Fprintln(w)
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// wallTarget is the verdict on a wall-time bound: met when the wall p50
// is within limit. When it is not but the CPU p50 is, the note says so:
// on a shared machine the difference is time spent waiting for a core.
func wallTarget(wall, cpu, limit time.Duration) (met bool, note string) {
	if wall <= limit {
		return true, ""
	}
	if cpu > 0 && cpu <= limit {
		return false, fmt.Sprintf("CPU p50 %s is within it; the rest of the wall time was waiting on a busy machine", ms(cpu))
	}
	return false, ""
}
