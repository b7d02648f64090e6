#!/usr/bin/env python3
"""Reductions and attention on a GPU: row softmax, row cumsum, flash-attention
forward, GQA backward, each against PyTorch in float32/float64 on random inputs.

Cases and tolerances:
- softmax (tests/gpu/kernels/softmax.tl, T.reduce_max + T.reduce_sum over
  fp16 rows): reference torch.softmax in float64; fp16 output, atol 1e-3
  (outputs are <= 1, fp16 rounding 2^-11 relative) and rtol 1e-2.
- cumsum (tests/gpu/kernels/cumsum.tl, T.cumsum of a shared float32 tile,
  forward and reversed): reference torch.cumsum in float64; 128 sequential
  float32 additions: atol 5e-4, rtol 1e-5.
- flash-attention forward (examples/flash_attn_fwd.tl), causal and not:
  reference torch SDPA in float32 on the same fp16 inputs; fp16 output with
  fp16 probabilities feeding the second gemm: atol = rtol = 1e-2.
- GQA backward (examples/gqa_bwd.tl, dQ through the custom T.annotate_layout
  and T.atomic_add, dK/dV through tile atomics): reference PyTorch autograd in
  float32; lse and Delta come from that reference; atol = rtol = 2e-2 (fp16
  operands of five gemms).
Outputs start as NaN (accumulated ones as zero, as the kernel adds into them),
so an element never written fails. Writes bench/results/attention-<date>.md;
with --bench also times flash-attention next to torch SDPA.
Exit status: 0 all checks pass, 1 a check failed, 2 a build failed, 77 no GPU.
"""
import argparse
import datetime
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tlc_gpu  # noqa: E402
from run_elementwise import commit  # noqa: E402

REPO = tlc_gpu.REPO
SOFTMAX = os.path.join(REPO, "tests", "gpu", "kernels", "softmax.tl")
CUMSUM = os.path.join(REPO, "tests", "gpu", "kernels", "cumsum.tl")
FA = os.path.join(REPO, "examples", "flash_attn_fwd.tl")
GQA = os.path.join(REPO, "examples", "gqa_bwd.tl")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def build(args, path, entry, workdir):
    return tlc_gpu.compile(path, entry=entry, tlc=args.tlc, nvcc=args.nvcc, cache_dir=workdir)


def softmax_case(torch, args, workdir, M, N, block_M, threads):
    label = f"softmax fp16 {M}x{N} (block_M {block_M}, {threads} threads)"
    kern = build(args, SOFTMAX, f"softmax({M}, {N}, {block_M}, {threads})", workdir)
    torch.manual_seed(4)
    x = (torch.randn(M, N, device="cuda") * 3).half()
    y = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    tlc_gpu.call(kern, x, y)
    torch.cuda.synchronize()
    ok, err, rel = tlc_gpu.check(y, torch.softmax(x.double(), dim=1), atol=1e-3, rtol=1e-2)
    return dict(label=label, ok=ok, err=err, rel=rel, tol="atol=1e-3 rtol=1e-2")


def cumsum_case(torch, args, workdir, reverse):
    label = f"cumsum of rows, float32 256x128{' reversed' if reverse else ''}"
    kern = build(args, CUMSUM, f"row_cumsum(256, 128, 64, reverse={reverse})", workdir)
    torch.manual_seed(7)
    x = torch.randn(256, 128, device="cuda")
    y = torch.full((256, 128), float("nan"), device="cuda")
    tlc_gpu.call(kern, x, y)
    torch.cuda.synchronize()
    xd = x.double()
    ref = xd.flip(1).cumsum(1).flip(1) if reverse else xd.cumsum(1)
    # 128 float32 additions in sequence: |err| <= 128 * 2^-24 * sum|x|, below 5e-4 here
    ok, err, rel = tlc_gpu.check(y, ref, atol=5e-4, rtol=1e-5)
    return dict(label=label, ok=ok, err=err, rel=rel, tol="atol=5e-4 rtol=1e-5")


def fa_case(torch, args, workdir, B, H, S, D, causal, bm=128, bn=128, threads=128):
    import torch.nn.functional as F
    label = f"flash-attn fwd B{B} H{H} S{S} D{D} {'causal' if causal else 'non-causal'} ({bm}x{bn}, {threads} thr)"
    entry = f"flashattn({B}, {H}, {S}, {D}, is_causal={causal}, block_M={bm}, block_N={bn}, threads={threads})"
    kern = build(args, FA, entry, workdir)
    torch.manual_seed(5)
    q, k, v = (torch.randn(B, S, H, D, device="cuda").half() for _ in range(3))
    o = torch.full((B, S, H, D), float("nan"), device="cuda", dtype=torch.float16)
    tlc_gpu.call(kern, q, k, v, o)
    torch.cuda.synchronize()
    ref = F.scaled_dot_product_attention(q.transpose(1, 2).float(), k.transpose(1, 2).float(),
                                         v.transpose(1, 2).float(), is_causal=causal).transpose(1, 2)
    ok, err, rel = tlc_gpu.check(o, ref, atol=1e-2, rtol=1e-2)
    return dict(label=label, ok=ok, err=err, rel=rel, tol="atol=rtol=1e-2", kern=kern, shape=(B, H, S, D, causal))


def unpermute_dq(torch, raw, b, l, h, d):
    # the inverse of make_dq_layout in examples/gqa_bwd.tl:
    # physical [b, l/8, h, d/8, d%2, 4*(l%8) + (d%8)/2]
    x = raw.reshape(b, l // 8, h, d // 8, 2, 8, 4)
    return x.permute(0, 1, 5, 2, 3, 6, 4).reshape(b, l, h, d)


def gqa_case(torch, args, workdir, causal, B=1, H=8, S=256, Dqk=192, Dv=128, groups=4):
    label = f"GQA bwd B{B} H{H} S{S} Dqk{Dqk} Dv{Dv} groups {groups} {'causal' if causal else 'non-causal'}"
    entry = f"flashattn_bwd({B}, {H}, {S}, {Dqk}, {Dv}, {groups}, is_causal={causal})"
    kern = build(args, GQA, entry, workdir)
    hkv = H // groups
    scale = Dqk ** -0.5
    torch.manual_seed(6)
    q = torch.randn(B, S, H, Dqk, device="cuda").half().requires_grad_()
    k = torch.randn(B, S, hkv, Dqk, device="cuda").half().requires_grad_()
    v = torch.randn(B, S, hkv, Dv, device="cuda").half().requires_grad_()
    do = torch.randn(B, S, H, Dv, device="cuda").half()
    qf, kf, vf = q.float(), k.float().repeat_interleave(groups, 2), v.float().repeat_interleave(groups, 2)
    s = torch.einsum("bqhd,bkhd->bhqk", qf, kf) * scale
    if causal:
        s = s.masked_fill(torch.ones(S, S, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    o = torch.einsum("bhqk,bkhd->bqhd", torch.softmax(s, -1), vf)
    o.backward(do.float())
    lse = (torch.logsumexp(s, -1) * 1.44269504).detach().contiguous()        # log2 domain, [B, H, S]
    delta = (o.detach() * do.float()).sum(-1).transpose(1, 2).contiguous()  # [B, H, S]
    dq = torch.zeros(B, S, H, Dqk, device="cuda")
    dk = torch.zeros(B, S, hkv, Dqk, device="cuda")
    dv = torch.zeros(B, S, hkv, Dv, device="cuda")
    tlc_gpu.call(kern, q.detach(), k.detach(), v.detach(), do, lse, delta, dq, dk, dv)
    torch.cuda.synchronize()
    res = []
    for name, got, want in (("dQ", unpermute_dq(torch, dq, B, S, H, Dqk), q.grad),
                            ("dK", dk, k.grad), ("dV", dv, v.grad)):
        ok, err, rel = tlc_gpu.check(got, want.float(), atol=2e-2, rtol=2e-2)
        res.append(dict(label=f"{label}: {name}", ok=ok, err=err, rel=rel, tol="atol=rtol=2e-2"))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tlc", default=os.path.join(REPO, "build", "tlc"))
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    args = ap.parse_args()
    torch = tlc_gpu.gpu_torch()
    if torch is None:
        return 77
    tlc_gpu.setup_env(args.tlc)
    workdir = tempfile.mkdtemp(prefix="tlc-attn-")
    rows, failed_build = [], False
    jobs = [
        lambda: [softmax_case(torch, args, workdir, 1024, 256, 32, 128)],
        lambda: [softmax_case(torch, args, workdir, 512, 128, 16, 256)],
        lambda: [cumsum_case(torch, args, workdir, False)],
        lambda: [cumsum_case(torch, args, workdir, True)],
        lambda: [fa_case(torch, args, workdir, 2, 4, 512, 64, False)],
        lambda: [fa_case(torch, args, workdir, 2, 4, 512, 128, True)],
        lambda: [fa_case(torch, args, workdir, 1, 2, 256, 128, False, 64, 64, 128)],
        lambda: gqa_case(torch, args, workdir, False),
        lambda: gqa_case(torch, args, workdir, True),
    ]
    for job in jobs:
        try:
            for r in job():
                log(f"{r['label']}: {'pass' if r['ok'] else 'FAIL'} err={r['err']:.3g}")
                rows.append(r)
        except tlc_gpu.BuildError as e:
            failed_build = True
            log(f"build failed: {e}")
            rows.append(dict(label="build failed", ok=False, err=float("nan"), rel=float("nan"), tol=str(e)[:200]))
    today = datetime.date.today().isoformat()
    lines = ["# Reductions and attention on the mma.sync path: numerics", "", f"- date: {today}",
             f"- device: {torch.cuda.get_device_name()}", f"- commit: {commit()}", f"- torch {torch.__version__}", "",
             "| case | check | max abs err | max rel err | tolerance |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['label']} | {'pass' if r['ok'] else 'FAIL'} | {r['err']:.3g} | {r['rel']:.3g} | {r['tol']} |")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"attention-{today}.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(open(path).read())
    if failed_build:
        return 2
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
