#!/usr/bin/env python3
"""A hand-made variant of tlc's CUDA for examples/gemm_fp8.tl (promote=True),
for measurement only: two C_step fragments, so that the WGMMA group of k-step
k+1 is in flight (wgmma.wait_group 1) while the consumers add k-step k's
product into C_acc.  Reads tlc's .cu on stdin, writes the variant on stdout.

    tlc examples/gemm_fp8.tl --entry 'matmul_fp8(8192, 8192, 8192, block_M=128, num_stages=4, threads=256)' \
        | python3 bench/notes/fp8_overlap_variant.py MODE > v.cu

MODE: pair (two k-steps per iteration, the first one's adds while the second
is in flight, nothing in flight across the back edge), rolled (one group
always in flight) or unrolled (the same with the loop fully unrolled).

Assumes an even number of k-steps (asserted) and the consumer loop exactly as
tlc prints it at commit fc2b7d7.
"""
import re
import sys

src = sys.stdin.read()
m = re.search(r"\t\tfor \(int k_1 = 0; k_1 < (\d+); \+\+k_1\) \{\n(.*?)\n\t\t\}\n", src, re.S)
assert m, "consumer loop not found"
steps = int(m.group(1))
assert steps % 2 == 0 and steps >= 2, "needs an even number of k-steps"
body = m.group(2) + "\n"
regs = int(re.search(r"float C_step\[(\d+)\];", src).group(1))
wait = re.search(r"\t\t\ttlc::mbar_wait\(&full\[\(k_1 % (\d+)\)\], \(\(k_1 / \d+\) % 2\)\);\n", body)
stages = int(wait.group(1))
gemm = re.search(r"\t\t\t(tlc::wgmma_gemm_ss<.*?>)\(&A_shared\[\(\(k_1 % \d+\) \* (\d+)\)\], "
                 r"&B_shared\[\(\(k_1 % \d+\) \* (\d+)\)\], C_step, (.*?), false\);\n", body)
fn, sa, sb, thr = gemm.group(1), gemm.group(2), gemm.group(3), gemm.group(4)
add = re.search(r"\t\t\t\{\n(.*?)\n\t\t\t\}\n", body[gemm.end():], re.S).group(1)


def issue(k, buf):
    return (f"tlc::mbar_wait(&full[(({k}) % {stages})], ((({k}) / {stages}) % 2));\n"
            f"{fn}(&A_shared[((({k}) % {stages}) * {sa})], &B_shared[((({k}) % {stages}) * {sb})], {buf}, {thr}, false);\n")


def retire(k, buf, n_left):
    return (f"tlc::wgmma_wait<{n_left}>();\ntlc::wgmma_fence_operand({buf});\n"
            f"tlc::mbar_arrive(&empty[(({k}) % {stages})]);\n{{\n" + add.replace("C_step[", buf + "[") + "\n}\n")


MODE = sys.argv[1] if len(sys.argv) > 1 else "pair"
if MODE == "pair":
    # k-steps in pairs; nothing in flight across the loop's back edge
    loop = (f"float C_step_b[{regs}];\n" + f"for (int k_1 = 0; k_1 < {steps}; k_1 += 2) {{\n" +
            issue("k_1", "C_step") + issue("k_1 + 1", "C_step_b") +
            retire("k_1", "C_step", 1) + retire("k_1 + 1", "C_step_b", 0) + "}\n")
else:
    # one group always in flight; the loop fully unrolled ("unrolled") or not ("rolled")
    loop = (f"float C_step_b[{regs}];\n" + issue("0", "C_step") +
            ("#pragma unroll\n" if MODE == "unrolled" else "") +
            f"for (int k_1 = 0; k_1 < {steps - 2}; k_1 += 2) {{\n" +
            issue("k_1 + 1", "C_step_b") + retire("k_1", "C_step", 1) +
            issue("k_1 + 2", "C_step") + retire("k_1 + 1", "C_step_b", 1) + "}\n" +
            issue(str(steps - 1), "C_step_b") + retire(str(steps - 2), "C_step", 1) +
            retire(str(steps - 1), "C_step_b", 0))
sys.stdout.write(src[:m.start()] + loop + src[m.end():])
