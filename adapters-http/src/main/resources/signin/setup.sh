#!/bin/sh
# setup.sh: connect kubectl to a cluster of the platform.
#   curl -fsSL @NC_SERVER@/setup.sh | sh -s -- you@example.com <cluster>
# Installs the sign-in plugin (kubectl-nc) into ~/.local/bin, says how to install kubectl when it is
# missing, fetches the cluster's kubeconfig (by the org token in NC_TOKEN or ~/.config/nationalcompute/token,
# else by name on the public onboarding route), merges a <cluster> context into ~/.kube/config without
# touching the other contexts, and starts the sign-in without waiting on it.
set -eu
umask 077

server="${NC_SERVER:-@NC_SERVER@}"
die() { printf 'setup: %s\n' "$*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: sh setup.sh you@example.com <cluster>"
email="$1"
cluster="$2"
case "$cluster" in
  ''|*[!a-z0-9-]*) die "the cluster is named by lower-case letters, digits and dashes, not '$cluster'" ;;
esac
command -v curl >/dev/null 2>&1 || die "curl is needed; install it with your package manager"

# 1. The plugin.
bin="$HOME/.local/bin"
mkdir -p "$bin"
curl -fsSL "$server/kubectl-nc" -o "$bin/kubectl-nc.new" || die "cannot download the plugin from $server"
chmod 755 "$bin/kubectl-nc.new"
mv -f "$bin/kubectl-nc.new" "$bin/kubectl-nc"
case ":$PATH:" in
  *":$bin:"*) ;;
  *) printf 'setup: add %s to your PATH (e.g. in ~/.profile: export PATH="$HOME/.local/bin:$PATH")\n' "$bin" >&2
     PATH="$bin:$PATH"; export PATH ;;
esac

# 2. kubectl.
if ! command -v kubectl >/dev/null 2>&1; then
  printf 'setup: kubectl is missing. Install it with your package manager, for example:\n' >&2
  printf '  Debian/Ubuntu: sudo apt-get install -y kubectl   (from https://pkgs.k8s.io)\n' >&2
  printf '  Fedora/RHEL:   sudo dnf install -y kubectl\n  macOS:         brew install kubectl\n' >&2
  printf 'then run this script again.\n' >&2
  exit 1
fi

# 3. The kubeconfig: by token when there is one, else by name.
token="${NC_TOKEN:-}"
if [ -z "$token" ] && [ -f "$HOME/.config/nationalcompute/token" ]; then
  token=$(tr -d ' \r\n' < "$HOME/.config/nationalcompute/token")
fi
mkdir -p "$HOME/.kube"
chmod 700 "$HOME/.kube"
fetched="$HOME/.kube/.$cluster.setup.$$"
trap 'rm -f "$fetched" "$fetched.merged"' EXIT
if [ -n "$token" ]; then
  # the token goes to curl on its standard input, never on a command line another user could read
  status=$(printf 'header = "Authorization: Bearer %s"\n' "$token" | curl -sS -K - -o "$fetched" -w '%{http_code}' \
    "$server/api/k8s/cluster/kubeconfig?cluster=$cluster") || die "cannot reach $server"
else
  status=$(curl -sS -o "$fetched" -w '%{http_code}' "$server/api/k8s/onboarding/kubeconfig?cluster=$cluster") \
    || die "cannot reach $server"
fi
if [ "$status" != "200" ]; then
  message=$(sed -n 's/.*"message":"\([^"]*\)".*/\1/p' "$fetched")
  if [ "$status" = "409" ]; then
    die "more than one cluster is named $cluster: put your org API token in NC_TOKEN or ~/.config/nationalcompute/token and run this again"
  fi
  die "the platform answered $status: ${message:-no kubeconfig}"
fi

# 4. Merge: the fetched file first, so its <cluster> entries replace older ones of that name; the
# current context stays what it was when there was one.
config="$HOME/.kube/config"
previous=""
if [ -f "$config" ]; then
  previous=$(NC_SIGNIN_QUIET=1 kubectl --kubeconfig "$config" config current-context 2>/dev/null || true)
  NC_SIGNIN_QUIET=1 KUBECONFIG="$fetched:$config" kubectl config view --flatten 2>/dev/null > "$fetched.merged" \
    || die "kubectl could not merge $config with the cluster's kubeconfig"
else
  NC_SIGNIN_QUIET=1 KUBECONFIG="$fetched" kubectl config view --flatten 2>/dev/null > "$fetched.merged" \
    || die "kubectl could not read the cluster's kubeconfig"
fi
if [ -n "$previous" ]; then
  NC_SIGNIN_QUIET=1 kubectl --kubeconfig "$fetched.merged" config use-context "$previous" >/dev/null 2>&1
fi
chmod 600 "$fetched.merged"
mv -f "$fetched.merged" "$config"
printf 'setup: context %s merged into %s\n' "$cluster" "$config" >&2

# 5. Sign in, without waiting: the plugin prints the link and polls in the background.
client=$(awk 'found { gsub(/^[ -]*"|"$/, ""); print; exit } /"--client"/ { found = 1 }' "$fetched")
printf 'setup: sign in as %s:\n' "$email" >&2
if NC_SIGNIN_WAIT=0 "$bin/kubectl-nc" token --server "$server" --client "$client" 2>&1 >/dev/null | cat >&2; then :; fi
printf 'setup: once approved, kubectl --context %s get nodes answers at once\n' "$cluster" >&2
