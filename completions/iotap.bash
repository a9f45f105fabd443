# bash completion for iotap. Verbs, options and --stack's kinds are read from iotap's own
# --help as you type, so they are always the installed iotap's; nothing here lists them.
# Installed as share/bash-completion/completions/iotap; `source completions/iotap.bash` in a
# build tree.

# The verbs: the lines under "verbs:" in `iotap --help`.
_iotap_verbs() {
  "$1" --help 2>/dev/null | sed -n '/^verbs:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p'
}

# A verb's options: every --long and -s at the start of a line of its --help's options block.
_iotap_options() {
  "$1" "$2" --help 2>/dev/null |
    sed -n '/^options/,$p' |
    grep -oE -- '^  -[a-zA-Z]|^  --[a-z][a-z-]*|\[ --[a-z][a-z-]* \]' |
    tr -d '[] ' | sort -u
}

# --stack's kinds: the words of the grammar's first sentence (raid0, linear, ram, ...), each
# offered with its opening parenthesis where it takes members.
_iotap_stack_kinds() {
  "$1" run --help 2>/dev/null |
    sed -n '/^--stack SPEC grammar:/,/(disks)/p' |
    sed -e 's/^--stack SPEC grammar://' -e 's/([a-z]*)//g' |
    grep -oE '[a-z][a-z0-9]*' |
    sed -e '/^ram$/b' -e '/^virtio$/b' -e '/^null$/b' -e 's/$/(/'
}

_iotap() {
  local iotap=${COMP_WORDS[0]}
  local cur=${COMP_WORDS[COMP_CWORD]}
  local prev=""
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    mapfile -t COMPREPLY < <(compgen -W "$(_iotap_verbs "$iotap")" -- "$cur")
    return
  fi
  local verb=${COMP_WORDS[1]}
  case $prev in
    --stack)
      compopt -o nospace 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -W "$(_iotap_stack_kinds "$iotap")" -- "$cur")
      return
      ;;
    --target)
      mapfile -t COMPREPLY < <(compgen -W "local vm" -- "$cur")
      return
      ;;
    -o | --output | --html | --format | -c | --command | -x | --pid | --timeout | --memory | \
      --save-module | --module | --for-kernel | --sql | --postgres-rows | --pgbench-scale)
      if [[ $prev == -o || $prev == --output || $prev == --html || $prev == --save-module ||
        $prev == --module ]]; then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      fi
      return
      ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_iotap_options "$iotap" "$verb")" -- "$cur")
    return
  fi
  compopt -o filenames 2>/dev/null
  case $verb in
    run) mapfile -t COMPREPLY < <(compgen -f -X '!*.stp' -- "$cur"; compgen -d -- "$cur") ;;
    report | compare | replay | probes) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    guest)
      compopt +o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -W "start stop status" -- "$cur")
      ;;
  esac
}

complete -F _iotap iotap
