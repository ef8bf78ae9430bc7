"""The plan's one memory figure, from every place that shows it.

Usage: check_memory_figure.py MAPPED.mlir EXPLAIN.txt TABLE.txt REPORT.json
REPORT.html

The record the mapper put on the function (dsm.chip_memory), the JSON
report's bytes, the table's and the HTML report's line and what
explain=true says the plan (or its fullest pipeline stage) needs must all
be the same figure; prints it, and its stage.
"""
import html
import json
import re
import sys

ir, explain, table, report_json, report_html = sys.argv[1:6]
record = re.search(r"dsm\.chip_memory = #dsm\.chip_memory<([^>]*)>",
                   open(ir).read())
assert record, "no dsm.chip_memory on the mapped function"
fields = {k: int(v) for k, v in re.findall(r"(\w+) = (-?\d+)", record.group(1))}
stage = fields.get("stage", -1)

memory = json.load(open(report_json))["totals"]["memory_per_chip"]
for category in ("weights", "gradients", "optimizer", "activations", "buffers"):
    assert memory[category + "_bytes"] == fields[category], (
        category, memory[category + "_bytes"], fields[category])
assert memory.get("stage", -1) == stage, (memory.get("stage"), stage)

line = re.search(r"^memory per chip: (.*?)(?:: does not fit)?"
                 r"(?:, on pipeline stage (\d+))?$", open(table).read(), re.M)
figure = line.group(1)
assert int(line.group(2) or -1) == stage, (line.group(2), stage)

page = re.search(r"<h2>Memory per chip</h2>\n<p>(.*?)(?:: <b>does not fit</b>)?"
                 r"(?:, on pipeline stage (\d+))?\.</p>", open(report_html).read())
assert html.unescape(page.group(1)) == figure, (page.group(1), figure)
assert int(page.group(2) or -1) == stage

remarks = open(explain).read()
if stage >= 0:
    stages = dict(re.findall(r"stage (\d+) \([^;]*? to [^;]*?\): [^;]*? in flight, "
                             r"([^;]*? buffers [^)]*\))", remarks))
    assert stages[str(stage)] == figure, (stages.get(str(stage)), figure)
else:
    said = re.search(r"the plan needs ([^;\n]*? buffers [^)]*\))", remarks)
    assert said and said.group(1) == figure, (said and said.group(1), figure)
print("one figure:", figure, "stage", stage)
