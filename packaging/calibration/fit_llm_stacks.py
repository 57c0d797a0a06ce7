#!/usr/bin/env python3
# Refits the transformer figures of the software stacks (matmul_efficiency, fp8_matmul_efficiency,
# matmul_efficiency_fp32) on calibration-llm.csv and calibration-gpu-single.csv (one H100, eager
# and torch.compile): first one figure per stack and device kind (the
# median ratio of published to predicted over the rows it governs, iterated), then one per
# hardware generation where the stack has 3 rows of 2 models or more on it. Start from stack
# files without these figures (git show <commit>:resources/stacks/...) to reproduce them.
# Usage: packaging/calibration/fit_llm_stacks.py   (after building build/app/accellab-cli)
import json, subprocess, collections, math, statistics, sys
import os
ROOT=os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
CLI=os.environ.get('ACCELLAB_CLI', ROOT+'/build/app/accellab-cli')
REF=os.environ.get('ACCELLAB_LLM_REFERENCE', ROOT+'/resources/calibration/calibration-llm.csv')
REF2=os.environ.get('ACCELLAB_GPU_SINGLE_REFERENCE', ROOT+'/resources/calibration/calibration-gpu-single.csv')
REFS=[f for f in (REF, REF2) if f]
# (stack, selector, key) -> predicate on a row (from the CSV) choosing the rows the figure governs
import csv
rows={r['id']:r for f in REFS for r in csv.DictReader(open(f))}
def kind(dev): return 'tpu' if dev.startswith('tpu') else 'gpu'
groups = {
  ('tuned','gpu','matmul_efficiency'): lambda r: r['stack']=='tuned' and kind(r['device'])=='gpu' and r['precision'] in ('bf16','fp16'),
  ('tuned','gpu','fp8_matmul_efficiency'): lambda r: r['stack']=='tuned' and kind(r['device'])=='gpu' and r['precision']=='fp8',
  ('tuned','tpu','matmul_efficiency'): lambda r: r['stack']=='tuned' and kind(r['device'])=='tpu',
  ('mlperf','gpu','fp8_matmul_efficiency'): lambda r: r['stack']=='mlperf' and r['precision']=='fp8',
  ('pytorch-eager','gpu','matmul_efficiency_fp32'): lambda r: r['stack']=='pytorch-eager' and r['precision']=='fp32',
  # Eager and torch.compile (default mode) call the same cuBLAS matmuls: one figure, both stacks' rows.
  ('pytorch-eager','gpu','matmul_efficiency'): lambda r: r['stack'] in ('pytorch-eager','pytorch-compile') and kind(r['device'])=='gpu' and r['precision'] in ('bf16','fp16'),
}
def load(stack): return json.load(open(f'{ROOT}/resources/stacks/{stack}.json'), object_pairs_hook=collections.OrderedDict)
def save(stack, d): json.dump(d, open(f'{ROOT}/resources/stacks/{stack}.json','w'), indent=2); open(f'{ROOT}/resources/stacks/{stack}.json','a').write('\n')
def get(stack, sel, key, default):
    d = load(stack); v = d.get(key)
    if isinstance(v, dict): return v.get(sel, default)
    return v if v is not None else default
def setv(stack, sel, key, val, ref):
    d = load(stack)
    v = d.get(key)
    if not isinstance(v, dict): v = collections.OrderedDict()
    v[sel] = round(val, 3)
    # insert before sources
    new = collections.OrderedDict()
    for k, x in d.items():
        if k == 'sources' and key not in d: new[key] = v
        new[k] = x if k != key else v
    new['sources'][key] = {"ref": ref, "date": "2026-11"}
    save(stack, new)
def validate():
    merged = None
    for f in REFS:
        out = json.loads(subprocess.run([CLI,'validate','--reference',f,'--format','json'],capture_output=True,text=True,check=True).stdout)
        if merged is None: merged = out
        else: merged['rows'] += out['rows']
    return merged
CARRIED = [  # (stack, selector, key, from) <- the figure of stack `from`: no rows of their own; the same kernels
    ('pytorch-eager', 'tpu', 'matmul_efficiency', "gpu: fitted on the eager and torch.compile rows of calibration-gpu-single.csv (one H100, 2026-11-26); tpu: carried from tuned (the same XLA matmuls)", 'tuned'),
    ('pytorch-eager', 'gpu', 'fp8_matmul_efficiency', "gpu: carried from tuned (fp8 training in PyTorch runs Transformer Engine's kernels; no eager fp8 rows)", 'tuned'),
    ('pytorch-compile', 'gpu', 'matmul_efficiency', "pytorch-eager's: the same cuBLAS matmuls (default mode does not autotune them), fitted on both stacks' rows", 'pytorch-eager'),
    ('pytorch-compile', 'tpu', 'matmul_efficiency', None, 'pytorch-eager'),
    ('pytorch-compile', 'gpu', 'fp8_matmul_efficiency', "pytorch-eager's (the same Transformer Engine / torchao kernels)", 'pytorch-eager'),
    ('mlperf', 'gpu', 'matmul_efficiency', "gpu, tpu: carried from tuned (no bf16 MLPerf LLM rows; submissions run the same NeMo/MaxText kernels)", 'tuned'),
    ('mlperf', 'tpu', 'matmul_efficiency', None, 'tuned'),
]
def carry():
    for stack, sel, key, ref, source in CARRIED:
        d = load(stack); v = d.get(key) if isinstance(d.get(key), dict) else None
        val = get(source, sel, key, None)
        if val is None: continue
        old_ref = d['sources'].get(key, {}).get('ref') if key in d.get('sources', {}) else None
        setv(stack, sel, key, val, ref if ref else (old_ref or ""))
REFTXT = "fitted on ../shared/reference/calibration-llm.csv and calibration-gpu-single.csv (2026-11-27): per stack and device kind, the median ratio of published to predicted over the rows the figure governs, iterated; see resources/stacks/README.md"
for it in range(6):
    v = validate()
    res = {r['id']: r for r in v['rows']}
    for (stack, sel, key), pred in groups.items():
        ratios = []
        for rid, r in rows.items():
            if not pred(r): continue
            x = res[rid]
            if 'predicted' not in x: continue
            ratio = x['published']/x['predicted']
            if r['metric']=='step_seconds': ratio = 1/ratio
            ratios.append(ratio)
        if not ratios: continue
        m = statistics.median(ratios)
        default = 0.6
        if key in ('fp8_matmul_efficiency','matmul_efficiency_fp32'):
            default = get(stack, sel, 'matmul_efficiency', 0.6)
        cur = get(stack, sel, key, default)
        new = min(0.98, max(0.05, cur*m))
        setv(stack, sel, key, new, REFTXT + f" ({len(ratios)} rows)")
        print(it, stack, sel, key, round(cur,3), '->', round(new,3), 'rows', len(ratios), 'median ratio', round(m,3))
    carry()
v = validate()
print('overall', v['overall'], 'unsupported', v['unsupported'])
for f in v['families']: print(f)

# Stage 2: per hardware generation, where the stack has rows on it (the kind-level figure above
# stays for generations without rows).
gen = {}
for f in __import__('glob').glob(ROOT+'/resources/devices/*.json'):
    d = json.load(open(f)); gen[d['id']] = d.get('generation', d['id'])
groups2 = {}
for (stack, sel, key), pred in groups.items():
    gens = sorted({gen[r['device']] for r in rows.values() if pred(r)})
    for g in gens:
        sel_rows = [r for r in rows.values() if pred(r) and gen[r['device']] == g]
        # A generation gets its own figure only from 3 rows of 2 models or more; fewer would be
        # a figure per row. Otherwise the kind's figure applies, as to a generation with none.
        if len(sel_rows) < 3 or len({r['model'] for r in sel_rows}) < 2: continue
        groups2[(stack, g, key)] = (lambda pred, g: (lambda r: pred(r) and gen[r['device']] == g))(pred, g)
REFG = "fitted on ../shared/reference/calibration-llm.csv and calibration-gpu-single.csv (2026-11-27): the median ratio of published to predicted over this stack's rows on this hardware generation, iterated; see resources/stacks/README.md"
for it in range(6):
    v = validate()
    res = {r['id']: r for r in v['rows']}
    for (stack, sel, key), pred in groups2.items():
        ratios = []
        for rid, r in rows.items():
            if not pred(r): continue
            x = res[rid]
            if 'predicted' not in x: continue
            ratio = x['published']/x['predicted']
            if r['metric']=='step_seconds': ratio = 1/ratio
            ratios.append(ratio)
        if not ratios: continue
        m = statistics.median(ratios)
        k = kind(next(r['device'] for r in rows.values() if pred(r)))
        cur = get(stack, sel, key, get(stack, k, key, 0.6))
        new = min(0.98, max(0.05, cur*m))
        setv(stack, sel, key, new, REFG + f" ({len(ratios)} rows)")
        if it == 5: print(stack, sel, key, round(new,3), 'rows', len(ratios))
    carry()
v = validate()
print('overall', v['overall'], 'unsupported', v['unsupported'])
for f in v['families']: print(f)
