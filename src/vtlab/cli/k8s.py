"""`vtlab k8s render` and `vtlab k8s run`: the same plan as manifests, or measured on a cluster row by row."""

from __future__ import annotations

import argparse
from pathlib import Path

from vtlab.cli import flags, k8sflags
from vtlab.cli.report import report_and_headline
from vtlab.core.settings import RESULTS
from vtlab.results import record, table
from vtlab.rig import prereqs, procs
from vtlab.targets import k8srun

# On Kubernetes, --context names kubectl's context, as in kubectl itself; the per-request context is then
# --request-context.
K8S_RENAMED = {"--context": "--request-context"}


def add(sub) -> None:
    k8s = sub.add_parser("k8s", help="the same plan on a Kubernetes cluster (k6-operator runners)",
                         description="Render the plan as Kubernetes manifests, or run it on a cluster row by row.")
    actions = k8s.add_subparsers(dest="k8s_action", required=True, metavar="ACTION")
    # no abbreviations: --context would otherwise be taken for --context-kb where it is not a flag (render)
    render = actions.add_parser("render", help="write the manifests of every tier and row (nothing is applied)",
                                allow_abbrev=False)
    flags.add_plan_flags(render, K8S_RENAMED, staircases=False, paired=False)
    k8sflags.add(render)
    render.add_argument("--out", type=Path, required=True, help="the folder to write the manifests into")
    render.set_defaults(func=cmd_k8s)
    run = actions.add_parser("run", help="measure the plan on a cluster through kubectl (needs the k6-operator)",
                             allow_abbrev=False)
    flags.add_plan_flags(run, K8S_RENAMED, staircases=False, paired=False)
    k8sflags.add(run)
    run.add_argument("--context", dest="kube_context", required=True, metavar="CTX", help="the kubectl context")
    run.add_argument("--out", type=Path, help="run folder (default results/<timestamp>)")
    run.add_argument("--resume", action="store_true", help="skip rows already in --out's CSV")
    run.set_defaults(func=cmd_k8s)


def cmd_k8s(args: argparse.Namespace) -> int:
    from vtlab.measure import loop
    from vtlab.targets import k8smanifests

    try:
        the_plan = flags.plan_of(args)
        cluster = k8sflags.cluster(args)
    except ValueError as err:
        return flags.usage_error(str(err))
    problem = k8sflags.unsupported(the_plan)
    if problem:
        return flags.usage_error(f"{problem} (on Kubernetes)")
    if args.k8s_action == "render":
        k8srun.write(k8smanifests.render(the_plan, cluster), args.out)
        print(f"vtlab k8s render: {len(the_plan.rows)} rows, {the_plan.runners} runner(s) each, namespace "
              f"{cluster.namespace}: {args.out}")
        return 0
    if args.resume and args.out is None:
        return flags.usage_error("--resume: give --out RUN_DIR, the cluster run to continue")
    run_dir = args.out or loop.default_run_dir(RESULTS)
    if (run_dir / table.CSV_NAME).exists() and not args.resume:
        return flags.usage_error(f"--out: {run_dir} already holds a matrix.csv; add --resume to continue it")
    problem = table.why_not_appendable(run_dir / table.CSV_NAME) if args.resume else None
    if problem:
        return flags.usage_error(f"--resume: {problem}")
    if args.resume:
        try:
            measured_on = record.read(run_dir).target
        except record.MalformedRecord as err:
            return flags.usage_error(f"--resume: {err}")
        if measured_on != k8srun.target(the_plan, cluster):
            return flags.usage_error(f"--resume: {run_dir} was not measured on a cluster with these images, runners, "
                                     "resources, node selectors and database (its metadata.json's target); resume it "
                                     "with the flags it was started with")
    java = prereqs.find_jdk()  # its `jfr` reads the recordings back; before the cluster is touched
    kubectl, facts = k8srun.preflight(args.kube_context, cluster)
    problem = table.why_not_writable(run_dir)  # after the cluster's checks: a refused run leaves no folder
    if problem:
        return flags.usage_error(f"--out: {problem}")
    procs.install_signal_handlers()
    try:
        failed = loop.run(k8srun.ClusterRun(kubectl, facts, cluster, java.jfr), the_plan, run_dir).failed_rows
    finally:
        procs.stop_all()
    report_and_headline(run_dir, [])
    return 1 if failed else 0
