#!/bin/sh
# Records the manager's image in a kustomization, with the result `kustomize edit set image
# controller=IMAGE` gives: the `images:` entry named `controller` gets `newName` and the
# tag (`newTag`) or digest (`digest`) of IMAGE; the rest of the file stays as it is.
#
#   sh hack/set-image.sh config/manager/kustomization.yaml example.com/operator:v0.1.0
set -eu
file=$1
image=$2
case $image in
'' | *[[:space:]]*)
  echo "set-image.sh: invalid image \"$image\"; pass IMG=registry/name:tag" >&2
  exit 1
  ;;
esac

# name@digest, name:tag (a colon after the last slash), or a bare name.
name=$image tag= digest=
case $image in
*@*)
  name=${image%%@*}
  digest=${image#*@}
  ;;
*)
  last=${image##*/}
  case $last in
  *:*)
    name=${image%:*}
    tag=${image##*:}
    ;;
  esac
  ;;
esac

entry="- name: controller
  newName: $name"
[ -n "$tag" ] && entry="$entry
  newTag: $tag"
[ -n "$digest" ] && entry="$entry
  digest: $digest"

tmp="$file.set-image.$$"
trap 'rm -f "$tmp"' EXIT
awk -v entry="$entry" '
  # Inside the top-level images: list; skipping the old controller entry.
  /^images:[[:space:]]*$/ { print; in_images = 1; print entry; written = 1; next }
  in_images && /^- name:[[:space:]]*controller[[:space:]]*$/ { skipping = 1; next }
  skipping && /^  / { next }
  { skipping = 0 }
  in_images && /^[^- ]/ { in_images = 0 }
  { print }
  END { if (!written) { print "images:"; print entry } }
' "$file" >"$tmp"
if cmp -s "$tmp" "$file"; then
  exit 0
fi
cat "$tmp" >"$file"
