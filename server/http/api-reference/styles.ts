/**
 * The reference pages' one stylesheet. Tables scroll sideways on phones rather than break names, so each takes
 * keyboard focus (tabindex="0").
 */
export const STYLES = `
:root{color-scheme:light;--text:#1d2330;--muted:#4a5365;--line:#d8dce4;--accent:#1f5fad;--bg-soft:#f4f6f9}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--text);background:#fff}
a{color:var(--accent)}
code{font:0.9em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:0.5rem}
.skip:focus{left:0.5rem}
.top{padding:1rem 1.25rem;border-bottom:1px solid var(--line)}
.brand{margin:0;font-weight:600}
h1{font-size:1.7rem;margin:0.4rem 0}
main > h2:first-child,main > section:first-child > h2{margin-top:0.5rem}
.version{font-size:0.9rem;font-weight:400;color:var(--muted)}
.layout{display:grid;grid-template-columns:minmax(15rem,19rem) minmax(0,1fr)}
.layout nav{grid-column:1;grid-row:1}
.layout main{grid-column:2;grid-row:1}
.single{max-width:62rem}
.ops{padding-left:1.2rem}
.ops li{margin:0.35rem 0}
nav{padding:1rem 1.25rem;border-right:1px solid var(--line);font-size:0.9rem}
nav h2{font-size:1.1rem;margin-top:0}
nav ul{list-style:none;padding-left:0;margin:0}
nav ul ul{padding-left:0.5rem;margin-bottom:0.6rem}
nav li{margin:0.15rem 0}
nav a{display:inline-block;padding:0.1rem 0;overflow-wrap:anywhere}
main{padding:1rem 1.25rem;min-width:0}
h2{font-size:1.45rem;margin:2rem 0 0.5rem;padding-top:0.5rem;border-top:2px solid var(--line)}
.op,.schema{content-visibility:auto;contain-intrinsic-size:auto 900px;margin:1.25rem 0;padding:1rem;border:1px solid var(--line);border-radius:6px}
.op h2,.schema h2{font-size:1.1rem;margin:0 0 0.3rem;padding:0;border:0;overflow-wrap:anywhere}
.op h3{font-size:1rem;margin:1rem 0 0.3rem}
h4{font-size:0.95rem;margin:0.6rem 0 0.3rem}
.summary{font-weight:600;margin:0.3rem 0}
.method{display:inline-block;min-width:3.6rem;padding:0 0.3rem;border-radius:4px;color:#fff;font:700 0.75rem/1.6 ui-monospace,Menlo,monospace;text-align:center}
.method--get{background:#1f5fad}.method--post{background:#19774a}.method--put{background:#8a5200}.method--patch{background:#0f6b63}.method--delete{background:#b42323}
.req{font-size:0.75rem;color:#8a1f1f;font-weight:600}
table{border-collapse:collapse;width:100%;font-size:0.9rem;margin:0.4rem 0}
caption{text-align:left;font-weight:600;padding:0.2rem 0}
th,td{overflow-wrap:break-word;border-top:1px solid var(--line);padding:0.35rem 0.5rem;text-align:left;vertical-align:top}
thead th{background:var(--bg-soft);white-space:nowrap}
.token,.token code,tbody th code{white-space:nowrap;overflow-wrap:normal}
tbody th{font-weight:400;white-space:nowrap}
.anchor-link{font-size:0.85rem;margin-bottom:0}
dt{font-weight:600}
dd{margin:0 0 0.6rem 0}
@media (max-width:760px){.layout{display:block}nav{border-right:0;border-top:1px solid var(--line)}table{display:block;overflow-x:auto}}
table:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
`;
