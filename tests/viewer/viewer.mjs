// Drives Debian's chromium through the contextfs viewer with Playwright:
// overview → search → memory → history → graph, and a hostile memory.
// The Go test TestViewerInABrowser (cmd/git-contextfs-serve) builds the
// fixture repository, starts `git contextfs serve`, runs this script and
// checks what it reports: one JSON object on stdout. Screenshots go to
// VIEWER_OUT.
//
// Environment: VIEWER_URL (the viewer's first line), VIEWER_OUT (a folder),
// VIEWER_QUERY (what to search), VIEWER_TITLE (the title of the result to
// open), VIEWER_HOSTILE (the ID of the hostile memory).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const base = env('VIEWER_URL');
const out = env('VIEWER_OUT');
const query = env('VIEWER_QUERY');
const title = env('VIEWER_TITLE');
const hostile = env('VIEWER_HOSTILE');

// A fresh profile: nothing of a previous run (or of a person's browser).
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'contextfs-viewer-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1200, height: 860 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
context.setDefaultTimeout(60000);
const report = { dialogs: [], pageErrors: [], requestsElsewhere: [], screenshots: [] };
try {
  const page = context.pages()[0] ?? await context.newPage();
  page.on('dialog', async (d) => { report.dialogs.push(d.message()); await d.dismiss(); });
  page.on('pageerror', (e) => report.pageErrors.push(String(e)));
  // The viewer serves everything a page needs: a request to any other
  // origin is a memory's content leaking out.
  const origin = new URL(base).origin;
  page.on('request', (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) report.requestsElsewhere.push(r.url()); });
  const shot = async (name, opts = {}) => {
    const file = path.join(out, name);
    await page.screenshot({ path: file, ...opts });
    report.screenshots.push(file);
  };

  // The overview.
  await page.goto(base);
  report.home = { h1: await page.textContent('main h1'), total: await page.textContent('#repo-total') };
  await shot('home.png', { fullPage: true });

  // Search from the box in the header, as a person would.
  await page.fill('header form.quick input[name=q]', query);
  await Promise.all([page.waitForURL(/\/search\?/), page.press('header form.quick input[name=q]', 'Enter')]);
  report.search = { url: page.url(), results: await page.$$eval('ol.results li .title', (els) => els.map((e) => e.textContent.trim())) };
  await shot('search.png', { fullPage: true });

  // The memory.
  await Promise.all([page.waitForURL(/\/memory\/[^/]+$/), page.click(`ol.results a.title:text-is(${JSON.stringify(title)})`)]);
  report.memory = {
    url: page.url(),
    title: await page.textContent('h1.memory-title'),
    bodyStrong: await page.$$eval('article .body strong', (els) => els.map((e) => e.textContent)),
    fields: Object.fromEntries(await page.$$eval('table.kv tr', (rows) => rows.map((r) => [r.querySelector('th').textContent, r.querySelector('td').textContent]))),
    outLinks: await page.$$eval('section.links ul.out li', (els) => els.map((e) => e.textContent.replace(/\s+/g, ' ').trim())),
    inLinks: await page.$$eval('section.links ul.in li', (els) => els.map((e) => e.textContent.replace(/\s+/g, ' ').trim())),
    chain: await page.$$eval('section.chain li', (els) => els.map((e) => e.textContent.replace(/\s+/g, ' ').trim())),
    commits: await page.$$eval('section.commits tbody tr', (els) => els.map((e) => e.textContent.replace(/\s+/g, ' ').trim())),
  };
  await shot('memory.png', { fullPage: true });

  // Its history.
  await Promise.all([page.waitForURL(/\/history/), page.click('p.actions a:text-is("History")')]);
  report.history = {
    url: page.url(),
    versions: await page.$$eval('ol.versions > li', (els) => els.map((e) => ({
      title: e.querySelector('.head a').textContent,
      current: !!e.querySelector('.current'),
      commits: e.querySelectorAll('table.commits tr').length,
    }))),
  };
  await shot('history.png', { fullPage: true });

  // The graph, from the navigation bar; then a node opens its memory.
  await Promise.all([page.waitForURL(/\/graph$/), page.click('header nav a:text-is("Graph")')]);
  report.graph = {
    nodes: await page.$$eval('svg g.node', (els) => els.map((e) => e.getAttribute('data-id'))),
    edges: await page.$$eval('svg line.edge', (els) => els.length),
    dashed: await page.$$eval('svg line.edge.supersedes', (els) => els.length),
    box: await page.$eval('figure.graph svg', (e) => { const r = e.getBoundingClientRect(); return { width: r.width, height: r.height }; }),
  };
  await shot('graph.png', { fullPage: false });
  const first = report.graph.nodes[0];
  await Promise.all([page.waitForURL(/\/memory\//), page.click(`svg g.node[data-id="${first}"] circle`)]);
  report.graph.clicked = page.url();

  // The hostile memory: nothing of it may run, and its title is text.
  await page.goto(`${base}memory/${hostile}`);
  report.hostile = {
    title: await page.textContent('h1.memory-title'),
    pwned: await page.evaluate(() => window.pwned ?? null),
    scripts: await page.$$eval('script', (els) => els.length),
    iframes: await page.$$eval('iframe', (els) => els.length),
    images: await page.$$eval('article img', (els) => els.length),
    links: await page.$$eval('article .body a', (els) => els.map((e) => e.getAttribute('href'))),
  };
  await shot('hostile.png', { fullPage: true });
} finally {
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(report) + '\n');
