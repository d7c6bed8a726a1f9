//! `the-loop plan`

use super::output::{print_json, stderr_style, stdout_style};
use crate::ops::Context;
use crate::plan::gather::{plan_now, Looks};
use crate::plan::{saved, Targets};
use crate::views::plan::render_plan;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Only this session (a work-item ref, a standing name or a tmux session name). Repeatable.
    #[arg(long = "target", value_name = "REF", add = clap_complete::engine::ArgValueCandidates::new(crate::cli::complete::session_refs))]
    pub targets: Vec<String>,
    /// Print the plan as one JSON object (format_version "1").
    #[arg(long)]
    pub json: bool,
    /// Exit 2 when drift was observed, 0 when none, 1 on error (a CI gate).
    #[arg(long)]
    pub detailed_exitcode: bool,
    /// Count harnesses the-loop does not manage (a `claude` a person started
    /// in a pane of their own) that hold a stale or withheld name as drift:
    /// with --detailed-exitcode they exit 2 until imported (`the-loop
    /// import`) or ended. Off by default: `apply` cannot roll them, so a
    /// gate that plans again after an apply would never pass. They are
    /// listed either way.
    #[arg(long)]
    pub include_unmanaged: bool,
    /// Also write the plan (fingerprints only) to FILE. `the-loop apply
    /// FILE` applies exactly it, without asking, and is refused if anything
    /// changed since; `the-loop show FILE` shows it again.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Plan against CANDIDATE instead of the configured env.file, to see
    /// what a rotation would do before the file is swapped in (Terraform's
    /// -var-file). Saved with --out, the plan is applied only once env.file
    /// declares exactly the candidate's names and values.
    #[arg(long, value_name = "CANDIDATE")]
    pub env_file: Option<PathBuf>,
}

/// Canonicalises targets that parse as refs, and refuses targets that name
/// nothing: a pane's session, or one of a host beside tmux (`plan` and
/// `apply` roll those too).
pub fn resolve_targets(ctx: &Context, raw: &[String]) -> miette::Result<Targets> {
    resolve(ctx, raw, true)
}

/// [`resolve_targets`] for a restart, which relaunches panes only: a
/// session of a host beside tmux is refused with what rolls it.
pub fn resolve_pane_targets(ctx: &Context, raw: &[String]) -> miette::Result<Targets> {
    resolve(ctx, raw, false)
}

fn resolve(ctx: &Context, raw: &[String], on_hosts: bool) -> miette::Result<Targets> {
    let mut resolved = Vec::new();
    if raw.is_empty() {
        // Every session: nothing to check, so the registry is read once, by the plan.
        return Ok(Targets(resolved));
    }
    let (sessions, _) = crate::plan::gather::managed_sessions(&ctx.registry);
    for target in raw {
        let canonical = match target.parse::<crate::registry::WorkItemRef>() {
            Ok(r) => r.to_string(),
            Err(_) => target.clone(),
        };
        let a_pane = sessions
            .iter()
            .any(|s| s.label() == canonical || s.tmux_target == canonical);
        let on_a_host = !a_pane && crate::hosts::names_a_managed_session(&ctx.config, &canonical);
        if on_a_host && !on_hosts {
            miette::bail!(
                code = "the_loop::target::on_host",
                help = format!("`the-loop apply --target {canonical}` rolls it when it drifted (docs/hosts.md)"),
                "{canonical} is a session of a host beside tmux, not a pane: a restart relaunches panes only"
            );
        }
        if !a_pane && !on_a_host {
            miette::bail!(
                code = "the_loop::target::unknown",
                help = "`the-loop sessions list` shows the registered sessions",
                "no registered session matches target {canonical}"
            );
        }
        resolved.push(canonical);
    }
    Ok(Targets(resolved))
}

/// Under the state root: markers of what a plan has said once already.
const SAID_DIR: &str = "said";

pub fn run(config: Option<&Path>, args: PlanArgs) -> miette::Result<ExitCode> {
    // tmux is checked on the version its listing reports: a plan of a clean
    // fleet is then one tmux call in all.
    let mut ctx = Context::load_checking_tmux_later(config)?;
    let (policy, candidate_for) = match &args.env_file {
        Some(candidate) => {
            let (policy, candidate_for) =
                crate::desired::load_candidate_policy(&ctx.config, candidate)?;
            (
                crate::desired::with_key(&ctx.config, policy)?,
                candidate_for,
            )
        }
        None => (crate::desired::load_policy_with_key(&ctx.config)?, None),
    };
    let targets = resolve_targets(&ctx, &args.targets)?;
    let (mut plan, observed) = plan_now(
        &policy,
        &ctx.registry,
        &ctx.tmux,
        &targets,
        Looks::Roll(crate::plan::safe_point::Mode::Apply),
    );
    crate::hosts::annotate(&mut plan, &ctx.config, &policy, &targets);
    plan.unmanaged_counted = args.include_unmanaged;
    plan.candidate_for = candidate_for;
    ctx.check_tmux(observed.tmux_version())?;
    // Freeing what 500 sessions' processes hold takes a millisecond or two:
    // on another core, while the plan is written.
    let freed = std::thread::spawn(move || drop(observed));
    if let Some(out) = &args.out {
        saved::write(&plan, out)?;
    }
    if args.json {
        print_json(&plan);
    } else {
        // Once per change of mode or key, not on every plan: the JSON
        // carries `fingerprints` on every plan instead.
        let before = crate::secret::store::last_shown(&ctx.config.state_root);
        if plan.fingerprints.shows_differently_from(&before) {
            plan.fingerprints_changed_from = Some(before);
            if let Err(e) =
                crate::secret::store::remember_shown(&ctx.config.state_root, &plan.fingerprints)
            {
                tracing::warn!(
                    "cannot remember the fingerprint mode ({}); the change is said again next time",
                    e.kind()
                );
            }
        }
        if let Some(residue) = plan.residue.as_mut() {
            // Once per residue, not on every plan: see `Residue::scrub_key`.
            residue.say_plans_get_cheaper = residue.scrub_key().is_some_and(|key| {
                crate::fsutil::first_time(&ctx.config.state_root.join(SAID_DIR), &key)
            });
        }
        crate::out!("{}", render_plan(&plan, stdout_style()));
        if let Some(out) = &args.out {
            crate::out!("{}", crate::views::show::saved_to(out, &plan));
        }
    }
    let _ = freed.join();
    if !args.detailed_exitcode {
        return Ok(ExitCode::SUCCESS);
    }
    // A blind plan is an error before it is drift or no drift: a gate
    // that passed it would pass a fleet it never saw.
    if let Some(failed) = &plan.observation_failed {
        crate::errln!("{} {}", stderr_style().red("error:"), failed);
        return Ok(ExitCode::FAILURE);
    }
    let drift = plan.has_drift() || (args.include_unmanaged && plan.has_unmanaged_drift());
    Ok(if drift {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
