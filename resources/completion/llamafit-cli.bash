# bash completion for llamafit-cli (installed as
# /usr/share/bash-completion/completions/llamafit-cli). Completes the commands, each
# command's own options, built-in card and machine ids, and GGUF files.

_llamafit_cli_ids() {
    # The ids are the first word of each line of `llamafit-cli cards|machines` after the header.
    "$1" "$2" 2>/dev/null | awk 'NR > 1 && $1 ~ /^[a-z0-9][a-z0-9._-]*$/ { print $1 }'
}

_llamafit_cli() {
    local cur prev words cword
    _init_completion || return

    local commands="cards inspect estimate fit sweep devices machines plan export launch hf engines"
    if ((cword == 1)); then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi

    local command=${words[1]}
    case $prev in
        -m | --model)
            COMPREPLY=($(compgen -W "$(_llamafit_cli_ids "$1" cards)" -- "$cur"))
            _filedir gguf
            return
            ;;
        --set)
            _filedir json
            return
            ;;
        --machine)
            COMPREPLY=($(compgen -W "$(_llamafit_cli_ids "$1" machines)" -- "$cur"))
            _filedir json
            return
            ;;
        --format)
            case $command in
                sweep) COMPREPLY=($(compgen -W "text csv json" -- "$cur")) ;;
                export) COMPREPLY=($(compgen -W "sh bat ini llama-swap" -- "$cur")) ;;
            esac
            return
            ;;
        -ctk | -ctv | --cache-type-k | --cache-type-v)
            COMPREPLY=($(compgen -W "f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1" -- "$cur"))
            return
            ;;
        --server | --proc-dir | --drm-dir)
            _filedir
            return
            ;;
        --port)
            COMPREPLY=($(compgen -W "any" -- "$cur"))
            return
            ;;
    esac

    local options="--help"
    case $command in
        cards | machines) options+=" --json" ;;
        inspect) options+=" --json -m --model" ;;
        estimate) options+=" --json -m --model --gpu --gpu-igpu -c -np -ctk -ctv -fa -b -ub -ngl -ts -ot" ;;
        fit) options+=" --json -m --model --budget-mib --gpu --gpu-igpu --types --all-pairs -c -ctk -ctv -ngl" ;;
        sweep) options+=" --json --format -m --model --contexts --types -np -ngl" ;;
        devices) options+=" --json --bandwidth --no-vulkan --no-nvml --proc-dir --drm-dir" ;;
        plan) options+=" --json -m --model --set --machine --carve-outs --margin-mib --fill --bandwidth -c -np -ctk -ctv -ngl" ;;
        export) options+=" --format --set --machine -m --model -c -np -ctk -ctv -ngl" ;;
        launch) options+=" -m --model --server --port -c -np -ctk -ctv -ngl" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
    elif [[ $command == inspect ]]; then
        COMPREPLY=($(compgen -W "$(_llamafit_cli_ids "$1" cards)" -- "$cur"))
        _filedir gguf
    fi
} && complete -F _llamafit_cli llamafit-cli
