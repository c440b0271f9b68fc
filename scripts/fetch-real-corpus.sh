#!/usr/bin/env bash
# Extracts the real-program corpus listed in scripts/real-corpus.tsv from local
# git mirrors of public GitHub repositories into $WINTERP_REAL_CORPUS (default
# ~/.cache/winterp-real), one folder per program: <name>/...
#
# Mirrors: $WINTERP_MIRROR_DIR (default /work/.mirror) holds one directory per
# repository named <owner>+<name>; the git directory inside is either
# <owner>+<name>/repo (bare) or <owner>+<name>/repo/.git (a clone with a work
# tree); a plain bare <owner>+<name> (HEAD and objects directly inside) and
# <owner>+<name>.git are accepted too. Nothing is downloaded: a program whose
# mirror (or commit) is absent is skipped with a message.
#
# Each TSV line: name repo commit path sha256 runtime apis note. path is either
# the exe itself or a folder that is copied whole, with the exe named in note as
# exe=NAME (path "." is the repository's whole tree). The exe's sha256 is
# verified; a mismatch is the only error (exit 1). Re-running is idempotent: a
# program already extracted with the right sha256 is left alone.
#
# Writes $WINTERP_REAL_CORPUS/MANIFEST (tab-separated: name repo commit path
# sha256 exe) listing the programs present.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tsv=${WINTERP_REAL_CORPUS_TSV:-$here/real-corpus.tsv}
mirror=${WINTERP_MIRROR_DIR:-/work/.mirror}
out=${WINTERP_REAL_CORPUS:-$HOME/.cache/winterp-real}

mkdir -p "$out"

find_gitdir() { # owner/name -> git dir on stdout, or nothing
  local base=$mirror/${1/\//+} d
  for d in "$base/repo/.git" "$base/repo" "$base/.git" "$base" "$base.git"; do
    if [[ -f $d/HEAD && -d $d/objects ]]; then
      printf '%s\n' "$d"
      return 0
    fi
  done
  return 1
}

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

manifest=$(mktemp)
trap 'rm -f "$manifest"' EXIT
bad=0 present=0 skipped=0

while IFS=$'\t' read -r name repo commit path sha runtime apis note || [[ -n ${name:-} ]]; do
  [[ -z ${name:-} || $name == \#* ]] && continue
  exe=
  if [[ $note =~ (^|[[:space:];])exe=([^;[:space:]]+) ]]; then
    exe=${BASH_REMATCH[2]}
  fi
  dest=$out/$name
  if [[ -n $exe ]]; then target=$dest/$exe; else target=$dest/${path##*/}; fi

  # already there and intact?
  if [[ -f $target && $(sha_of "$target") == "$sha" ]]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$repo" "$commit" "$path" "$sha" "${target#"$dest"/}" >>"$manifest"
    present=$((present + 1))
    continue
  fi

  if ! git=$(find_gitdir "$repo"); then
    echo "skip $name: no mirror of $repo under $mirror" >&2
    skipped=$((skipped + 1))
    continue
  fi
  if ! git --git-dir="$git" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "skip $name: commit $commit is not in the mirror of $repo" >&2
    skipped=$((skipped + 1))
    continue
  fi

  tmp=$(mktemp -d "$out/.tmp.XXXXXX")
  if [[ -z $exe ]]; then
    # a single file
    if ! git --git-dir="$git" show "$commit:$path" >"$tmp/${path##*/}" 2>/dev/null; then
      echo "skip $name: $path not found at $commit in $repo" >&2
      rm -rf "$tmp"
      skipped=$((skipped + 1))
      continue
    fi
  else
    # a whole folder ("." = the whole tree)
    spec=$commit
    [[ $path != . ]] && spec=$commit:$path
    if ! git --git-dir="$git" archive --format=tar "$spec" 2>/dev/null | tar -x -C "$tmp" 2>/dev/null; then
      # Snapshots leave out files of 4 MiB and more: copy the folder file by file,
      # leaving out (with a notice) the blobs the mirror does not have.
      rm -rf "$tmp" && tmp=$(mktemp -d "$out/.tmp.XXXXXX")
      listed=0
      while IFS=$'\t' read -r meta file; do
        listed=1
        blob=${meta##* }
        rel=$file
        [[ $path != . ]] && rel=${file#"$path"/}
        mkdir -p "$tmp/$(dirname "$rel")"
        if ! git --git-dir="$git" cat-file blob "$blob" >"$tmp/$rel" 2>/dev/null; then
          rm -f "$tmp/$rel"
          echo "note $name: $file is not in the mirror (large file left out of the snapshot)" >&2
        fi
      done < <(git --git-dir="$git" ls-tree -r "$commit" -- "$( [[ $path == . ]] && echo . || echo "$path/")" 2>/dev/null)
      if [[ $listed -eq 0 ]]; then
        echo "skip $name: folder $path not found at $commit in $repo" >&2
        rm -rf "$tmp"
        skipped=$((skipped + 1))
        continue
      fi
    fi
  fi
  got=$tmp/${target#"$dest"/}
  if [[ ! -f $got ]]; then
    echo "skip $name: ${target#"$dest"/} missing in $path at $commit" >&2
    rm -rf "$tmp"
    skipped=$((skipped + 1))
    continue
  fi
  actual=$(sha_of "$got")
  if [[ $actual != "$sha" ]]; then
    echo "SHA256 MISMATCH $name: $repo@$commit:$path -> $actual, expected $sha" >&2
    rm -rf "$tmp"
    bad=$((bad + 1))
    continue
  fi
  rm -rf "$dest"
  mv "$tmp" "$dest"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$repo" "$commit" "$path" "$sha" "${target#"$dest"/}" >>"$manifest"
  present=$((present + 1))
  echo "ok $name"
done <"$tsv"

{
  printf '# name\trepo\tcommit\tpath\tsha256\texe\n'
  cat "$manifest"
} >"$out/MANIFEST"

echo "real corpus: $present present in $out, $skipped skipped, $bad sha256 mismatches" >&2
[[ $bad -eq 0 ]]
