// The status page's shell and style, served as they are (src/status/page-serve.ts) beside its one script (rack.ts,
// compiled with the rest). Strings of a module rather than files of their own: the Debian package ships dist/src's
// JavaScript only. Nothing is fetched from outside the host.

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>device-agent</title>
<link rel="stylesheet" href="rack.css">
<script type="module" src="rack.js"></script>
</head>
<body>
<header>
<h1>device-agent</h1>
<p id="host"></p>
<p id="lost" role="alert" hidden></p>
</header>
<main id="main"><p>Reading the daemon's devices…</p><noscript>This page needs JavaScript: <code>device-agent list</code> and /metrics say the same.</noscript></main>
</body>
</html>
`;

export const PAGE_CSS = `
:root { font: 15px/1.4 system-ui, sans-serif; color: #1a1a1a; background: #f4f4f1; }
body { margin: 0 auto; padding: 0 .8rem 2rem; max-width: 90rem; }
h1 { font-size: 1.2rem; margin: .6rem 0 0; }
h2 { font-size: 1.1rem; margin: 1.2rem 0 .4rem; }
h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
h4 { font-size: .95rem; margin: 0; }
a { color: #0b4f9c; }
a:focus-visible { outline: 3px solid #0b4f9c; outline-offset: 2px; }
code { background: #e6e6e1; padding: 0 .2em; overflow-wrap: anywhere; }
#host { margin: .2rem 0; color: #3d3d3d; }
#lost { background: #8a1010; color: #fff; padding: .5rem; font-weight: bold; }
.stale main { opacity: .55; }
ul.tiles { list-style: none; padding: 0; margin: 0; display: grid; gap: .5rem; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); }
.tile { background: #fff; border: 1px solid #c9c9c2; border-left: .45rem solid #2e7d32; border-radius: 4px; padding: .4rem .5rem; }
.tile.t1 { border-left-color: #b36b00; }
.tile.t2 { border-left-color: #b3261e; background: #fff6f5; }
.tile p { margin: .15rem 0; overflow-wrap: anywhere; }
.port { font-size: .85rem; color: #3d3d3d; }
.bad { color: #a11d15; font-weight: bold; }
.warn { color: #7a4700; }
.strip { display: flex; height: .9rem; margin-top: .3rem; border: 1px solid #9a9a94; }
.strip > span { flex: 1; display: flex; }
.strip > span + span { border-left: 1px solid #fff; }
.strip i { display: block; }
.l-in { background: #2e7d32; } .l-none { background: #dcdcd6; }
.l-phone { background: #b3261e; } .l-port { background: #e07b00; } .l-hub { background: #8e44ad; } .l-controller { background: #5d4037; }
.l-host { background: #37474f; } .l-adb { background: #1565c0; } .l-cloud { background: #00838f; } .l-readiness { background: #c2185b; }
.legend { display: flex; flex-wrap: wrap; gap: .2rem .8rem; padding: 0; list-style: none; font-size: .85rem; }
.legend i { display: inline-block; width: .8rem; height: .8rem; margin-right: .3rem; vertical-align: -.1rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; vertical-align: top; padding: .2rem .4rem; border-bottom: 1px solid #dcdcd6; overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; margin: 0; }
dt { color: #3d3d3d; } dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 30rem) { ul.tiles { grid-template-columns: 1fr; } dl { grid-template-columns: 1fr; } dd { margin-bottom: .3rem; } }
`;
