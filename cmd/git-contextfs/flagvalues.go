package main

import "github.com/spf13/pflag"

// stringArrayVar defines a repeatable string flag with no default:
// pflag's StringArray, each value taken whole, the first value given
// replacing the default. Where a command documents comma-separated values
// (--tag on save, --kind, --type, --repos) they are split where they are
// read (tag normalisation, the query, Config.Pick), because
// pflag's StringSlice reads each value as a CSV record: a quote in a tag
// would be a parse error, and a --part text would be cut at its commas.
func stringArrayVar(fs *pflag.FlagSet, p *[]string, name, short, usage string) {
	fs.StringArrayVarP(p, name, short, nil, usage)
}
