"""Rebuild the faulty IR of a seed bug from the IR tlc emits for the same kernel.

  seed_ir.py fence-before-wait IN OUT
      seed 000: T.warpgroup_fence_operand(C) moved before the T.wait_wgmma it
      must follow (what TileLang's T.wgmma_gemm emitted).
  seed_ir.py single-warpgroup IN OUT
      seed 001: a gemm over a merged T.ws(1, 2) scope lowered as if one
      warpgroup ran it: each warpgroup issues the one-warpgroup WGMMA of the
      first M/2 rows (the same rows), though the epilogue reads the two
      warpgroups' registers as rows [0, M/2) and [M/2, M).

Fails (exit 1) when the IR has nothing to change, so a test cannot pass by
rewriting nothing.
"""
import re
import sys


def fence_before_wait(lines):
    out, changed, i = [], 0, 0
    while i < len(lines):
        if lines[i].strip() == "T.wait_wgmma(0)" and i + 1 < len(lines) and \
                lines[i + 1].strip().startswith("T.warpgroup_fence_operand("):
            out += [lines[i + 1], lines[i]]
            changed += 1
            i += 2
            continue
        out.append(lines[i])
        i += 1
    return out, changed


def single_warpgroup(lines):
    out, changed = [], 0
    for line in lines:
        m = re.match(r"^(\s*)(T\.wgmma_issue\(.*)$", line)
        if not m or "wg_m=2" not in line:
            out.append(line)
            continue
        ind, call = m.groups()
        rows = int(re.search(r"\bM=(\d+)", call).group(1))
        lo = int(re.search(r"thread_lo=(\d+)", call).group(1))
        half = re.sub(r"\bM=\d+", f"M={rows // 2}", call).replace("wg_m=2", "wg_m=1")
        half = half.replace(f"layout_A=T.swizzled_layout(({rows},", f"layout_A=T.swizzled_layout(({rows // 2},")
        second = half.replace(f"thread_lo={lo}", f"thread_lo={lo + 128}")  # warpgroups of 128 threads (sm90)
        out += [f"{ind}if T.thread_idx(0) < {lo + 128}:", f"{ind}    {half}", f"{ind}else:", f"{ind}    {second}"]
        changed += 1
    return out, changed


def main():
    what, src, dst = sys.argv[1:4]
    lines = open(src).read().split("\n")
    out, changed = {"fence-before-wait": fence_before_wait, "single-warpgroup": single_warpgroup}[what](lines)
    if not changed:
        print(f"seed_ir.py: nothing to rewrite for {what} in {src}", file=sys.stderr)
        sys.exit(1)
    open(dst, "w").write("\n".join(out))


if __name__ == "__main__":
    main()
