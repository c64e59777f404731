#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every relative link and image in README.md, HACKING.md and docs/*.md must resolve: the file
exists, and a #fragment names a heading of that file (GitHub's anchor rules)."""
import pathlib
import re
import sys

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~)")


def anchors(path):
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, -N for repeats."""
    seen, out = {}, set()
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
        if in_fence or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(path):
    in_fence = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        for m in LINK.finditer(line):
            yield number, m.group(1)


def main(root):
    root = pathlib.Path(root)
    pages = [root / "README.md", root / "HACKING.md", *sorted((root / "docs").glob("*.md"))]
    problems, count = [], 0
    for page in pages:
        if not page.exists():
            problems.append(f"{page.relative_to(root)}: missing")
            continue
        for number, target in links(page):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            count += 1
            file_part, _, fragment = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            where = f"{page.relative_to(root)}:{number}: {target}"
            if not dest.exists():
                problems.append(f"{where}: no such file")
            elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                problems.append(f"{where}: no heading with that anchor in {dest.name}")
    for p in problems:
        print(p)
    print(f"{count} relative links in {len(pages)} pages, {len(problems)} broken")
    return 1 if problems or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
