"""Why each of seed 000's figures and bullets comes out as it does in the model: the named
mechanism behind a match, and behind a miss either the mechanism the model lacks or the
public figure the seed contradicts. ``python -m ssdlab.studies.seed000_score OUT ...
--markdown PATH`` writes the scored figures and bullets with these reasons beside them
(docs/seed000-score.md is that file for the studies of its date).

What this is and is not: text written by hand from the model's mechanisms
(docs/seed000.md, docs/seed000-calibration.md) and the drives' data sheets
(seed000_calibration.PUBLIC); it never changes a verdict, which the score computes from
the studies' results alone. A reason is kept per panel of figures (the five queue counts
of one state and workload, or its unassigned labels) and per bullet, and says which way
it cuts: a reason written for a miss stays true of the mechanism if a later model
reproduces the figure, so each says what it rests on.
"""

from __future__ import annotations

from typing import Any

# The data sheets the reasons quote (seed000_calibration.PUBLIC cites each).
_SHEETS_RANDOM = (
    "the two data sheets contradict it: Samsung rates the 980 PRO at 1,000K random reads and "
    "writes (QD32, 500 GB: 800K / 1,000K) and the 980 at 500K / 480K (500 GB: 400K / 470K), "
    "a +100..113 % gap the model follows (4 command cores against 2, PCIe 4.0 against 3.0)"
)
_HOST = (
    'a host bound below both drives would give it, and the seed names one ("Custom Test '
    'Driver is in-house & not built for performance"): `--host-cpu-per-io 10us` makes the T1 '
    'panels on par (docs/seed000.md, "What a slow host does"), but no source gives the '
    "driver's cost, so the study runs a host that costs nothing"
)
_GRANT = (
    "in the model a larger HMB grant only adds map-cache hits, so Max >= Half >= Min wherever "
    "the grant matters (aged random reads over the whole drive) and all three are equal "
    "elsewhere (sequential I/O touches one map segment per 4 MiB; writes log their map "
    "updates in the SRAM journal whatever the grant). The seed's grant panels swing from "
    "-25 % to +215 % between neighbouring bars with no order by size; no mechanism we know "
    "of makes a smaller HMB faster, and the seed does not say which bar is which grant "
    "(seed000_data.HMB_SIZE_LEGIBLE)"
)
_SPAN = (
    "the studies test the whole drive (the seed does not give IOMeter's test span): the "
    "980's 64 MiB HMB maps 64 GiB, so most aged random reads of a 500 GB or 1 TB span miss "
    "the map cache and pay a translation-page read; over a span the HMB maps (`--span "
    "16GiB`) the two drives come within +9 % (docs/seed000.md)"
)

# Per panel of figures: the figure id without its last part (queue count or label).
FIGURE_WHY: dict[str, str] = {
    "sw-high-normal": (
        "Writes into the SLC cache: the 980 PRO's controller write path (5,000 MB/s on its data "
        "sheet) against the 980's SLC programs (200 us, from the 500 GB's 2,600 MB/s) through "
        "its SRAM write buffer (768 KiB, what its 2 MiB SRAM leaves), which holds each "
        "program's data until the program ends: 2,737 MB/s (data sheets: 5,000 / 3,000 "
        "MB/s, +67 %)."
    ),
    "sw-high-sustain": (
        "The model's Sustain starts with the whole SLC cache full of the first LBAs (114 GB "
        "on the 980 PRO, 160 GB on the 980 at 1 TB), and the test rewrites those LBAs: each "
        "drive folds and erases the cache's blocks as the host invalidates them and writes "
        "into them again. The 980 PRO, its folds free in DRAM and 32 dies (its 256 Gbit die, "
        "since 2026-11-29), gets back to 3,805 MB/s; the 980 folds through its 768 KiB SRAM "
        "buffer and stays near its after-cache rate (614-623 MB/s): +511..520 %. The seed's "
        "Sustain gap "
        "(+78..103 %) is its Normal gap (+68..71 %, writes into SLC): its drives had SLC room "
        "when the test ran, which idle folding between the preconditioning and the test, or a "
        "preconditioning of the static TurboWrite region only, would give; the seed says "
        "neither how long it waited nor how much it wrote."
    ),
    "sw-high-aging": (
        "A full drive past its cache. Since 2026-11-29 a full fill leaves in SLC the LBAs it "
        "wrote last on a drive that folds while the host writes (both presets), so the test "
        "from LBA 0 writes past the cache: the 980 PRO folds one for one into TLC at 2,054 "
        "MB/s (its data sheet: 2,000 after TurboWrite); the 980 folds its SLC data while the "
        "host writes, every folded page staged in the same SRAM that buffers host writes "
        "(`controller.gc_staging = 'gather'`), at 402 MB/s (TechPowerUp measured ~500 on an "
        "empty drive)."
    ),
    "sr-high-normal": (
        "Both drives at their links (PCIe 4.0 x4 against 3.0 x4: +100 %; data sheets 7,000 "
        "against 3,500 MB/s); the seed's +77 % is within the factor 1.33 the rule allows."
    ),
    "sr-high-sustain": ("As Normal: both drives at their links (+100 %); the seed's +118 %."),
    "sr-high-aging": (
        "Both drives read a sequentially written full drive at their links (+100 %); the "
        "seed's 980 loses another 10-20 % on an aged drive (+131..141 %). No mechanism in the "
        "model slows a DRAM-less drive's sequential reads of sequential data (one map segment "
        "per 4 MiB); what does it on the real 980 is not in our sources."
    ),
    "rr1-high-normal": (
        "Seed: on par (-0.35 %, only the sign legible). " + _SHEETS_RANDOM + "; " + _HOST + "."
    ),
    "rr16-high-sustain": (
        "Seed: HMB better by 7-9 %. " + _SHEETS_RANDOM + "; " + _HOST + " (T16 also needs a "
        "per-queue or per-host limit, `--host-irq-per-io`)."
    ),
    "rr16-high-aging": (
        "Seed: on par (-0.78 %, only the sign legible). "
        + _SHEETS_RANDOM
        + "; on an aged drive the 980 also misses its map cache ("
        + _SPAN
        + ")."
    ),
    "rw1-high-normal": (
        "Seed: on par (+0.17..+3.92 %). " + _SHEETS_RANDOM + "; the 980's whole-drive random "
        "writes are further held by its map updates (journal flushes to translation pages, "
        "docs/map-cache.md); " + _HOST + "."
    ),
    "rw1-high-sustain": (
        "Seed: on par (-0.38..+8.00 %). " + _SHEETS_RANDOM + "; " + _HOST + ". Past its "
        "cache the model's 980 folds its SLC data while the host writes (the preset's "
        "fold_watermark_blocks = 1, from TechPowerUp's 'flushing SLC back to TLC'), each fold "
        "page and map write-back staged in its SRAM: 20.1-22.8 K IOPS, unsettled after 24 s, "
        "against the 980 PRO's 244-648 K; the seed's on-par Sustain looks like writes into "
        "SLC (see sw-high-sustain)."
    ),
    "rw1-high-aging": (
        "Both aged drives collect garbage while they write; the 980 also loads and writes "
        "translation pages for the map entries GC moves and stages every GC page in its SRAM, "
        "which GC shares at its pace (`controller.gc_buffer_share`). Since 2026-11-29 both "
        "presets write GC's moves a stripe at a time round the dies (`ftl.gc_destination = "
        "'striped'`, an assumption: before, each collecting die gathered a stripe of its own "
        "in the 980's 768 KiB SRAM and its dies idled, 2.8-2.9 K IOPS). The model's aged "
        "980 1 TB now runs at 23.8-24.5 K IOPS (not settled by 24 s) against its 980 PRO's "
        "123-126 K (both fold their SLC area in the foreground part of the time, docs/"
        "seed000.md, sixth session), +405..427 % at every queue count, where the seed's is "
        "+1,169..1,718 % at "
        "1Q-8Q and +383 % at Max-Q: Max-Q reproduced, the rest the direction with a smaller "
        "gap; the model has no mechanism that makes the 980 gain with queues (the seed's "
        "gap shrinks 4x from 4Q to Max-Q) and no public figure gives the 980's aged random "
        "writes."
    ),
    "rw16-high-normal": (
        "Seed: on par (+0.32, +8.10 %). " + _SHEETS_RANDOM + "; " + _HOST + " (T16: 16 threads "
        "are not held by a per-thread cost; a per-queue or per-host limit would be needed)."
    ),
    "rw16-high-sustain": (
        "Seed: +1.26 % and +1,059.45 % (the OCR does not say which bar; the second looks like "
        "an Aging label). " + _SHEETS_RANDOM + "."
    ),
    "rw16-high-aging": (
        "As the T1 Aging panel: the model's +418..+437 % against the seed's +647..+948 % "
        "(labels not assigned to queue counts): two within a factor of 2."
    ),
    "rr1-low-aging": ("Seed: DRAM +15 %. " + _SPAN + "."),
    "rr16-low-aging": ("Seed: DRAM +5..+13 %. " + _SPAN + "."),
    "rw1-low-normal": (
        "Seed: +7.44 %. "
        + _SHEETS_RANDOM
        + " (500 GB: 1,000K against 470K, +113 %); "
        + _HOST
        + "."
    ),
    "rw1-low-sustain": (
        "Seed: +23..+37 %. " + _SHEETS_RANDOM + " (500 GB: +113 %); the 980 500 GB's writes "
        "past its cache have no public figure."
    ),
}

BULLET_WHY: dict[str, str] = {
    "sw-dram-leads": (
        "The lead is reproduced in every state (into SLC the 980 PRO's 5,000 MB/s against the "
        "980's SRAM-bound ~2,850; past the cache 2,000+ against ~500 MB/s), the widening at "
        "Aging is not: the Sustain gap (+491 %) is the largest, as the 980 PRO reuses the "
        "blocks of the cache data the test rewrites at 3,291 MB/s in Sustain and 2,568 on a "
        "full drive, while the 980 stays near its after-cache rate in both (557, 471)."
    ),
    "sw-hmb-1q-aging": (
        "One 128 KiB stream at QD32 runs the same NAND path whatever the queue count; the "
        "model has no per-queue cost that would single out 1Q on the 980 (its firmware "
        "spreads commands over its cores in any case); not in our sources."
    ),
    "sr-dram-leads": (
        "The lead is reproduced (+100 %, both drives at their links), its widening with the "
        "drive state is not: see figures sr-high-aging."
    ),
    "sr-1q-aging": ("Both drives' sequential reads are flat over queue counts (link-bound)."),
    "rr1-hmb-better": ("Contradicted by the data sheets: " + _SHEETS_RANDOM + "; " + _HOST + "."),
    "rr16-hmb-better": ("Contradicted by the data sheets: " + _SHEETS_RANDOM + "; " + _HOST + "."),
    "rr1-hmb-consistent-aging": (
        "The aged 980's random reads are bound by map-cache misses and its dies, not by "
        "queues: flat over queue counts; the 980 PRO's rise with its cores."
    ),
    "rr16-hmb-consistent-aging": ("As rr1-hmb-consistent-aging."),
    "rr1-dram-gains-with-queues-aging": (
        "Queue i is served by firmware core i mod cores (4 on the 980 PRO): more queues use "
        "more cores until the dies bind."
    ),
    "rr16-dram-gains-with-queues-aging": ("As rr1-dram-gains-with-queues-aging."),
    "rw1-on-par": ("Contradicted by the data sheets: " + _SHEETS_RANDOM + "; " + _HOST + "."),
    "rw16-on-par": ("Contradicted by the data sheets: " + _SHEETS_RANDOM + "; " + _HOST + "."),
    "rw1-more-queues-faster": (
        "The 980 PRO rises with queues (one firmware core per queue up to its 4), the 980 does "
        "not: its whole-drive random writes are held by its map updates, not by its cores. "
        "Within the HMB's reach (`--span 16GiB`) both rise."
    ),
    "rw16-more-queues-faster": ("As rw1-more-queues-faster."),
    "rw1-dram-leads-aging": ("Figures rw1-high-aging: the direction, a smaller gap at 1Q-8Q."),
    "rw16-dram-leads-aging": ("Figures rw16-high-aging: the direction, a smaller gap."),
    "md-rr-low-dram-higher-aging": ("The DRAM drive leads by far more than 'a little': " + _SPAN),
    "md-rw1-low-dram-low-q": (
        "At 500 GB the 980 PRO's 1Q and 2Q points are bound by one and two firmware cores "
        "(244 K, 488 K at 4.0 us a command) and end before its 22 GB SLC cache fills, while "
        "from 4Q (975 K into SLC) the cache fills within the run and the drive folds one for "
        "one (322 K with its 16 dies); the 980 is flat (80 K, map updates). So the gap is "
        "largest at 2Q (+508 %) and smaller at 1Q (+204 %) than at Max-Q (+302 %); which "
        "regime the seed's IOmeter runs measured is not given."
    ),
    "md-rw1-low-uniform-sustain": (
        "In Sustain the 980 writes past its cache at every queue count, bound by folding one "
        "for one through its SRAM (32 K, unsettled), so it does not depend on the queue "
        "count; the 980 PRO 500 GB does at 1Q, where one firmware core bounds it (244 K at "
        "4.0 us a command), below its folding rate from 2Q on (327 K with 16 dies): a 25 % "
        "spread the seed does not show."
    ),
    "hs-sw-no-impact": (
        "Sequential writes touch one map segment per 4 MiB: the grant never binds."
    ),
    "hs-sw-aging-1q": (
        "The drop from Normal to Aging is reproduced (past the cache, folding through the "
        "SRAM); the 1Q-specific hit is not: see sw-hmb-1q-aging."
    ),
    "hs-sr-no-impact": ("As hs-sw-no-impact."),
    "hs-rr1-max-better": (_GRANT[0].upper() + _GRANT[1:] + "."),
    "hs-rr1-half-consistent-aging": (
        "All three grants are equally consistent over queue counts (map misses and dies "
        "bound them, not queues): the claim singles out Half, the model cannot."
    ),
    "hs-rr16-half-better": (_GRANT[0].upper() + _GRANT[1:] + "."),
    "hs-rr16-half-poor-sustain": (
        "The grants come out equal in Sustain (most random reads of the drive find "
        "never-written segments, which need no map load). " + _GRANT[0].upper() + _GRANT[1:] + "."
    ),
    "hs-rw1-no-impact-normal-sustain": (
        "Writes log their map updates in the SRAM journal whatever the grant (docs/map-cache.md)."
    ),
    "hs-rw1-min-falls-with-queues-aging": (
        "The aged 980's random writes are flat over queue counts at every grant alike "
        "(GC and the map updates bound them, not the queues), and the grant changes no "
        "write (map updates are logged in the SRAM journal whatever the grant). The rule "
        "reads the trend's sign from 1Q to Max-Q, which moves within the points' unsettled "
        "scatter (-0.5 % on 2026-11-29, fifth session; +3.0 % since the row-at-a-time GC "
        "reads, +2.1 % since GC's stripes program in order on 2026-11-30, +2.6 % since "
        "the preparation ages the dies as far as aging one directly, the same at every "
        "grant): the verdict of this bullet and the next flips "
        "with noise, not with a mechanism."
    ),
    "hs-rw1-max-rises-with-queues-aging": (
        "The Max grant behaves as the others (see hs-rw1-min-falls-with-queues-aging): the "
        "model cannot have Max rise while Min falls, the grant only changing map-cache hits "
        "(the HMB as a write-back map cache, `map.update = 'write-back'`, would make the "
        "grant act on writes; on the striped aged 1 TB it runs at 12.6 K IOPS with a WAF "
        "of 13.7 (the journal: 24.1 K on the same 300,000 writes), so no preset uses it)."
    ),
    "hs-rw16-min-better": (_GRANT[0].upper() + _GRANT[1:] + "."),
    "hs-rw16-half-low": (_GRANT[0].upper() + _GRANT[1:] + "."),
    "md-hs-rr16-low-flat-sustain": (
        "As hs-rr16-half-poor-sustain: the grants are equal in Sustain."
    ),
    "md-hs-rw1-low-half-low-q-normal": (_GRANT[0].upper() + _GRANT[1:] + "."),
    "md-hs-rw1-low-min-consistent-aging": (
        "All three grants are equally consistent; the claim singles out Min, the model cannot."
    ),
    "c-4q-optimal": (
        "In the model more queues help only while they add firmware cores (the 980 PRO's 4, "
        "the 980's 2); past that the queue count does not matter, so no count stands out "
        "at 4Q. What would make 4Q best on the seed's drives (an arbitration or interrupt cost "
        "growing with queues) is not in our sources."
    ),
    "c-max-half-better": (_GRANT[0].upper() + _GRANT[1:] + "."),
    "c-maxq-lowest-gap": (
        "The gaps are flat over queue counts except where the 980 PRO gains cores (which "
        "widens them); the seed's smallest gap at Max-Q (random write T1 Aging 382.62 % "
        "against 1,169-1,718 %) has no mechanism in the model."
    ),
    "c-rr-larger-densities": (
        "Both densities test the whole drive, so the 980's 64 MiB HMB covers an eighth (500 "
        "GB) or a fifteenth (1 TB) of the map and both miss alike; " + _SPAN + "."
    ),
    "c-rw-competitive": ("Contradicted by the data sheets: " + _SHEETS_RANDOM + "; " + _HOST + "."),
    "c-seq-read-no": ("The links differ (PCIe 4.0 against 3.0): the 980 reads at half the rate."),
    "c-seq-write-no": ("The write path and the SLC cache: see sw-dram-leads."),
}


def panel_of(figure_id: str) -> str:
    """A figure's panel: its id without the queue count or label part."""
    return figure_id.rsplit("-", 1)[0]


def figure_why(figure_id: str) -> str:
    return FIGURE_WHY.get(panel_of(figure_id), "")


def bullet_why(bullet_id: str) -> str:
    return BULLET_WHY.get(bullet_id, "")


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(doc: dict[str, Any]) -> str:
    """The scored figures and bullets of ``seed000_score.score`` as Markdown, each with its
    reason (the panel's for figures, said once per panel)."""
    s = doc["summary"]
    fig_n = sum(s["figures"].values())
    aim = s["figures"].get("reproduced", 0) + s["figures"].get("factor2", 0)
    out = [
        "# Seed 000 scored, figure by figure and bullet by bullet",
        "",
        "Written by `python -m ssdlab.studies.seed000_score OUT ... --markdown PATH` from the "
        "studies' results (inputs: "
        + ", ".join(f"`ssdlab study {p['study']}`, {p['points']} points" for p in doc["inputs"])
        + "). The "
        "verdicts are computed from the results (rules: docs/seed000.md, section Score); the "
        "reasons are written by hand (`ssdlab/studies/seed000_why.py`) and name the mechanism "
        "behind a match, or behind a miss the mechanism the model lacks or the public figure "
        "the seed contradicts.",
        "",
        "figures: "
        + f"{fig_n} | "
        + " | ".join(f"{k} {v}" for k, v in s["figures"].items())
        + f" (reproduced or within a factor of 2 with the right sign: {aim})",
        "",
        "bullets: "
        + f"{sum(s['bullets'].values())} | "
        + " | ".join(f"{k} {v}" for k, v in s["bullets"].items()),
        "",
        '## The 64 "% Diff" figures (DRAM over HMB)',
        "",
        "| figure | queues | seed % | ssdlab % | verdict | why (per panel) |",
        "|---|---|---:|---:|---|---|",
    ]
    seen: set[str] = set()
    for f in doc["figures"]:
        panel = panel_of(f["id"])
        why = "" if panel in seen else figure_why(f["id"])
        seen.add(panel)
        q = f["queues"] or f"? ({f.get('compared_with') or 'none run'})"
        seed = f"{f['seed_pct']:+.2f}" + ("" if f.get("legible", True) else "*")
        ours = "-" if f["ssdlab_pct"] is None else f"{f['ssdlab_pct']:+.2f}"
        out.append(f"| `{f['id']}` | {_md(q)} | {seed} | {ours} | {f['verdict']} | {_md(why)} |")
    out += [
        "",
        "\\* only the sign is legible in the OCR.",
        "",
        "## The 41 bullets",
        "",
        "| bullet | verdict | evidence | why |",
        "|---|---|---|---|",
    ]
    for b in doc["bullets"]:
        out.append(
            f"| `{b['id']}` {_md(b['text'])} | {b['verdict']} | {_md(b['evidence'])} | "
            f"{_md(bullet_why(b['id']))} |"
        )
    return "\n".join(out) + "\n"
