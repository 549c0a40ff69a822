# Prints, one per line, the candidates zsh's own completion system offers for the command line $2
# once the completion script $1 is loaded: an interactive zsh in a pseudo-terminal, TAB pressed,
# compadd wrapped to print what it is given.
zmodload zsh/zpty zsh/datetime
zpty z zsh -f -i
zpty -w z 'PROMPT= ; RPROMPT= '
zpty -w z 'autoload -U compinit && compinit -u -D'
zpty -w z "source ${(q)1}"
zpty -w z 'compadd () { local -a __h; builtin compadd -O __h "$@"; (( $#__h )) && print -r -l -- "<<${^__h[@]}>>"; builtin compadd "$@" }'
zpty -w z 'bindkey "^I" complete-word'
zpty -w z 'print -r -- "READY$((40+2))"'
local all= chunk
wait_for() {
  local -F deadline=$(( EPOCHREALTIME + 10 ))
  while (( EPOCHREALTIME < deadline )); do
    if zpty -r -t z chunk; then
      all+=$chunk
      [[ $all == *$1* ]] && return 0
    else
      sleep 0.05
    fi
  done
  return 1
}
wait_for READY42 || { print -u2 "zsh did not start"; exit 2 }
all=
zpty -wn z "$2"$'\t'
zpty -w z $'\C-u''print -r -- "DONE$((40+2))"'
wait_for DONE42 || { print -u2 "no answer"; exit 2 }
zpty -d z
print -r -- "$all" | tr -d '\r' | grep -o '<<[^<>$]*>>' | sed -E 's/<<(.*)>>/\1/' | sort -u
