# Sourced by run-case.sh and run-cpu.sh. stop_server_when PID LOG PATTERN SECONDS: waits until
# LOG matches PATTERN (grep) or SECONDS have passed, then stops the server PID and reaps it.
stop_server_when() {
    local pid="$1" log="$2" pattern="$3" seconds="$4"
    for _ in $(seq 1 "$seconds"); do
        sleep 1
        grep -q "$pattern" "$log" && break
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
