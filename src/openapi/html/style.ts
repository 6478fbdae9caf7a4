/** The reference page's stylesheet, served at /docs/style.css (the page's CSP allows styles from its own origin only). */
export const DOCS_CSS = `
:root { color-scheme: light dark; --line: #8884; --muted: #777; --accent: #2f6fdf; }
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1.5rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; }
pre { background: #8881; border: 1px solid var(--line); border-radius: 6px; overflow-x: auto; padding: 0.75rem; }
nav ul { columns: 2; list-style: none; padding: 0; }
nav li { margin: 0.15rem 0; }
section.operation { border-top: 2px solid var(--line); margin-top: 2rem; padding-top: 1rem; }
h2 { font-size: 1.2rem; }
h3 { font-size: 1rem; margin-bottom: 0.3rem; }
h4 { font-size: 0.95rem; margin: 1rem 0 0.3rem; }
.method { border-radius: 4px; color: #fff; display: inline-block; font-size: 0.8rem; margin-right: 0.4rem; min-width: 3.5rem; padding: 0.1rem 0.4rem; text-align: center; }
.method-get { background: #2a8a4a; } .method-post { background: var(--accent); } .method-patch { background: #b06a00; }
.credential { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
th { font-weight: 600; }
`;
