#!/usr/bin/env bash
# A check of the checks: in a scratch copy of the committed tree, break one thing at a time
# on purpose and run the tests that guard it; each break must make at least one of them
# fail. Prints `mutation <name>: caught by <tests>` per break and exits 1 if one survives.
# Snapshot assertions are forced to pass (INSTA_FORCE_PASS), so a break counts as caught
# only by a test that checks behaviour. Needs kubectl and helm (hack/control-plane.sh) and
# ../shared/charts-corpus, as the suite does under CI.
#
# Builds share this checkout's target/ as cargo's build-dir, so only the workspace's own
# crates compile again. Cargo names a workspace crate's build by its name, version and path
# within the workspace, not by where the checkout is: the copy's crates get another version
# so that they cannot overwrite (or be mistaken for) this checkout's, and its final
# binaries go to a target dir of its own.
#
#   scripts/check-the-checks.sh [name...]     all mutations, or only the named ones
#   scripts/check-the-checks.sh --dry-run     only check that every break still applies to
#                                             the file it names (no build; the suite runs it)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fail() { echo "check-the-checks: $*" >&2; exit 2; }

if [ "${1:-}" = --dry-run ]; then
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  cd "$root"
  run() {
    local name="$1" file="$2" substitution="$3"
    [ "$file" != - ] || return 0
    [ -f "$file" ] || fail "mutation $name names $file, which does not exist; update $0"
    cp "$file" "$scratch/copy"
    perl -0pi -e "$substitution" "$scratch/copy"
    ! cmp -s "$file" "$scratch/copy" || fail "mutation $name no longer changes $file; update $0"
    echo "mutation $name: applies to $file"
  }
  break_corpus() { :; }
  restore_corpus() { :; }
  only=() survived=0
  source <(sed -n '/^# --- the mutations ---$/,$p' "$0")
  exit 0
fi

corpus="$root/../shared/charts-corpus"
[ -d "$corpus/expected" ] || fail "$corpus not found; the corpus mutation needs it"
if [ -z "${RUSTY_SDK_CONTROL_PLANE:-}" ]; then
  RUSTY_SDK_CONTROL_PLANE="$("$root/hack/control-plane.sh" --check)" ||
    fail "kubectl and helm are not built; run hack/control-plane.sh"
fi
scratch="$(mktemp -d)"
export RUSTY_SDK_CONTROL_PLANE INSTA_FORCE_PASS=1
export CARGO_BUILD_BUILD_DIR="${CARGO_TARGET_DIR:-$root/target}" CARGO_TARGET_DIR="$scratch/target"
unset RUSTY_SDK_SKIP_E2E CHART_CORPUS

git -C "$root" worktree add --quiet --detach "$scratch/repo" HEAD
trap 'git -C "$root" worktree remove --force "$scratch/repo"; rm -rf "$scratch"' EXIT
cd "$scratch/repo"
sed -i 's/^version = "0\.1\.0"$/version = "0.1.0-mutant"/' Cargo.toml crates/*/Cargo.toml
sed -i 's/\(path = "[^"]*", version = \)"0\.1\.0"/\1"=0.1.0-mutant"/' Cargo.toml crates/*/Cargo.toml
# The corpus beside the copy: its files linked, so that one can be replaced, not edited.
mkdir "$scratch/shared"
cp -al "$corpus" "$scratch/shared/charts-corpus" 2>/dev/null || cp -r "$corpus" "$scratch/shared/charts-corpus"

# mutate FILE PERL-SUBSTITUTION: the substitution must change the file.
mutate() {
  cp "$1" "$scratch/saved"
  perl -0pi -e "$2" "$1"
  ! cmp -s "$1" "$scratch/saved" || fail "the mutation of $1 no longer applies; update $0"
}

# run NAME FILE SUBSTITUTION CARGO-TEST-ARGS...: break, test, restore, report (FILE `-`:
# the break is data, made before the call).
survived=0
run() {
  local name="$1" file="$2" substitution="$3"; shift 3
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then return; fi
  [ "$file" = - ] || mutate "$file" "$substitution"
  local log="$scratch/$name.log"
  cargo test "$@" >"$log" 2>&1 || true
  [ "$file" = - ] || mv "$scratch/saved" "$file"
  local caught
  caught="$(sed -n 's/^test \(.*\) \.\.\. FAILED$/\1/p' "$log" | paste -sd, -)"
  if grep -q 'error\[E\|error: could not compile' "$log"; then
    echo "mutation $name: did not build (see below)"; tail -20 "$log"; survived=$((survived + 1))
  elif [ -n "$caught" ]; then
    echo "mutation $name: caught by $caught"
  else
    echo "mutation $name: SURVIVED ($(grep -c '^test .* ok$' "$log") tests passed, $(grep -c 'ignored' "$log") lines with ignored)"
    survived=$((survived + 1))
  fi
}
only=("$@")

# One rendered file of one chart's expected output, changed by a character.
expected="$scratch/shared/charts-corpus/expected/podinfo/defaults.json"
break_corpus() { rm "$expected"; sed 's/replicas: 1/replicas: 2/' "$corpus/expected/podinfo/defaults.json" >"$expected"; }
restore_corpus() { rm "$expected"; cp "$corpus/expected/podinfo/defaults.json" "$expected"; }

# --- the mutations ---

run operator-chart src/commands/edit/helm_chart/files.rs \
  's/\{\{ \.Values\.manager\.replicas \}\}/{{ add1 .Values.manager.replicas }}/' \
  -p rusty-sdk --test it helm_chart::
run kustomization templates/init/base/config/default/kustomization.yaml.tera \
  's/namePrefix: \{\{ project_name \}\}-/namePrefix: {{ project_name }}-x-/' \
  -p rusty-sdk --test it -- namespaced:: shipping:: bundle:: helm_chart::
run release-unchanged crates/runtime/src/helm/in_process.rs \
  's/None => return Ok\(false\),/None => {}/' \
  -p rusty-sdk-runtime --features chart-engine --lib helm::tests::
run release-always-changed crates/runtime/src/helm/in_process.rs \
  's/(\n        \}\n)        Ok\(true\)\n/$1        Ok(false)\n/' \
  -p rusty-sdk-runtime --features chart-engine --lib helm::tests::
run uninstall-skipped crates/runtime/src/helm/uninstall.rs \
  's/self\s*\.ctx\s*\.settings\s*\.helm\s*\.uninstall\(&self\.target, &options\)\s*\.await/{ let _ = &options; Ok::<(), crate::helm::HelmError>(()) }/' \
  -p rusty-sdk-runtime --features chart-engine --lib helm::tests::delete
# The release engine, held to the real helm v4.2.3 on the control plane.
run engine-keeps-dropped-keys crates/runtime/src/helm/engine/apply.rs \
  's/patch\.insert\(key\.clone\(\), Value::Null\);/{}/' \
  -p rusty-sdk --test it cluster::helm_differential::a_client_side_release
run engine-record-name crates/runtime/src/helm/engine/record.rs \
  's/"sh\.helm\.release\.v1\.\{name\}\.v\{version\}"/"sh.helm.release.v1.{name}.{version}"/' \
  -p rusty-sdk --test it cluster::helm_storage
# OLM bundles: webhook configurations left in the bundle, a conversion webhook allowed in
# any install mode.
run bundle-keeps-webhook-configurations src/commands/generate_bundle/mod.rs \
  's/\n\s*\|\| webhooks::made_by_olm\(objects, object\)//' \
  -p rusty-sdk --test it bundle_validate::
run validate-ignores-conversion-install-modes src/commands/bundle_validate/csv_rules.rs \
  's/if converts && !only_all/if false && converts && !only_all/' \
  -p rusty-sdk --test it bundle_validate::
# An owned CRD version that is not served (OLM keeps the CSV Pending), and a dashboard
# panel charting a metric the runtime does not export (the webhook row).
run validate-allows-unserved-versions src/commands/bundle_validate/rules.rs \
  's/if !serves\(&document\.object, version\)/if false/' \
  -p rusty-sdk --test it bundle_validate::
run dashboard-charts-a-missing-metric src/commands/edit/grafana/dashboards.rs \
  's/rate\("controller_runtime_webhook_requests_total"/rate("controller_runtime_webhook_request_total"/' \
  -p rusty-sdk --test it cluster::dashboards::the_webhook_rows
break_corpus
run corpus-expected - - -p rusty-sdk-chart --test engine corpus_renders_like_helm
restore_corpus

[ "$survived" -eq 0 ] || { echo "$survived mutation(s) survived" >&2; exit 1; }
