"""The stylesheet every self-contained HTML page shares: the report, the diff page, the calibration page.

A leaf (it imports nothing of the project), so that each page imports it without importing another page.
"""

from __future__ import annotations

from typing import Final

CSS: Final = """
:root{--fg:#1d1d1f;--muted:#5f6368;--line:#e2e2e6;--bg:#fff;--band:#f7f7f9;--accent:#0072b2}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header.top{position:sticky;top:0;z-index:5;background:#fafafc;border-bottom:1px solid var(--line);padding:8px 20px}
header .title{display:flex;flex-wrap:wrap;align-items:baseline;gap:8px 18px}
h1{font-size:18px;margin:0}
header .pack{color:var(--muted);font-size:12px}
header details.signature{font-size:11px;color:var(--muted);max-width:980px}header details.signature div{word-break:break-all}
nav{margin-top:4px}nav a{margin-right:14px;color:var(--accent);text-decoration:none;font-size:13px}
main{padding:8px 20px 40px;max-width:1280px}
section{margin-top:18px;border-top:1px solid var(--line);padding-top:6px}
h2{font-size:17px;margin:10px 0 4px}h3{font-size:15px;margin:14px 0 4px}h4{font-size:13px;margin:10px 0 4px}
.lede{color:var(--muted);max-width:980px;margin:4px 0 8px}
.src{color:var(--muted);font-weight:normal;font-size:12px}
.chartbox svg{display:block;margin:4px 0 10px;max-width:100%;height:auto}
svg.chart{max-width:100%;height:auto}
.cards{display:flex;gap:12px;flex-wrap:wrap}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 14px;min-width:230px;background:var(--band)}
.card-title{font-weight:600}.big{font-size:28px;font-weight:650;color:var(--accent)}.small{font-size:12px;color:var(--muted)}
table{border-collapse:collapse;margin:6px 0;font-size:12.5px}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f2f2f5;font-weight:600}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.level-task_type td:first-child{font-style:italic}tr.level-overall td{font-weight:650}
tr.idle td{color:#aaa}tr.flagged td{color:#b00020}
.warn{color:#b00020;font-weight:600}
.stamp{color:var(--muted);font-size:11px;margin:10px 0 0;word-break:break-all}
.sig{font-size:11px;word-break:break-all}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.controls{display:flex;flex-wrap:wrap;gap:6px 16px;align-items:center;margin:6px 0}
.controls label{font-size:12.5px}.pager button{margin:0 3px}
table.audit{width:100%;table-layout:fixed}
table.audit td.text,table.flips td.text{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:11.5px;
white-space:pre-wrap;word-break:break-word;max-height:14em;overflow:auto}
table.audit col.text{width:28%}
del{background:#ffe1e1;color:#a40000;text-decoration:line-through}
ins{background:#d9f7df;color:#0b5d1e;text-decoration:none}
.elided{color:#888;font-style:italic;background:#f0f0f0}
.muted{color:var(--muted)}td .run{font-size:10.5px;overflow-wrap:anywhere;text-align:left}
table.audit td{overflow-wrap:break-word}table.audit td.rules,table.audit .reason{font-size:11px}
svg.mini{vertical-align:middle}table.rules td.ex{min-width:220px;max-width:340px}.scroll{overflow-x:auto}table.hide-idle tr.idle{display:none}.toggle{font-size:12.5px}td.ex{font-size:11.5px;color:var(--muted)}svg.spark{vertical-align:middle}
footer{margin-top:28px;color:var(--muted);font-size:12px;border-top:1px solid var(--line);padding-top:8px}
@media print{header.top{position:fixed}main{margin-top:70px}section{break-inside:avoid-page}}
"""
