"""Runs every command of a Markdown guide's ```sh blocks, as written.

    run_guide.py GUIDE SRC_ROOT OBJ_ROOT WORK_DIR

Commands run one by one with bash (pipefail) in WORK_DIR, where `build`
points at OBJ_ROOT and `models`, `systems`, `test` and `tools` into
SRC_ROOT, so the guide's paths work unchanged. Prints each command; stops
with its output and a non-zero exit at the first that fails.
"""
import os
import shutil
import subprocess
import sys


def commands(guide):
    inside = False
    with open(guide, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if stripped.startswith("```"):
                inside = not inside and stripped == "```sh"
                continue
            if inside and stripped and not stripped.startswith("#"):
                yield number, stripped


def main():
    guide, src, obj, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.symlink(obj, os.path.join(work, "build"))
    for name in ("models", "systems", "test", "tools"):
        os.symlink(os.path.join(src, name), os.path.join(work, name))
    ran = 0
    for number, command in commands(guide):
        print(f"{os.path.basename(guide)}:{number}: {command}", flush=True)
        result = subprocess.run(["bash", "-o", "pipefail", "-c", command],
                                cwd=work, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stdout.write(result.stdout[-4000:])
            sys.stdout.write(result.stderr[-4000:])
            print(f"FAILED (exit {result.returncode}): {command}")
            return 1
        ran += 1
    print(f"{ran} commands ran")
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main())
