#!/usr/bin/env bash
# Starts and stops throwaway PostgreSQL servers for the tests, examples and
# benchmarks of StowagePostgres. Everything of a server lives in one folder:
#
#   postgres.sh start DIR       a fresh server in DIR; prints the path of DIR/env
#   postgres.sh stop DIR        stops it (pg_ctl -m fast); fine if already stopped
#   postgres.sh restart DIR     stops it, then starts it again: same port, same data
#   postgres.sh kill DIR        stops it abruptly (pg_ctl -m immediate), like a crash
#   postgres.sh resume DIR      starts a stopped or killed server again, same port
#   postgres.sh psql DIR SQL    runs SQL through psql as the superuser, as an
#                               operator would, on the database stowage
#   postgres.sh run -- CMD ...  runs CMD against a server in a temporary folder,
#                               then stops every server in it and removes it
#
# DIR/env holds `export` lines for STOWAGE_POSTGRES_HOST, _PORT, _USER,
# _PASSWORD, _DATABASE, _SOCKET_DIR, _CA and _DIR. `run` exports them to CMD,
# with STOWAGE_POSTGRES_SCRIPT (this script) and STOWAGE_POSTGRES_SCRATCH (a
# folder where tests `start` private servers, each stopped when CMD ends).
#
# In DIR: data/ (the cluster), tls/ (a throwaway CA and the server's
# certificate), server.log, env, and the socket. The server listens on
# 127.0.0.1, with or without TLS, and on the socket; the role `stowage` logs in
# with a password (scram-sha-256) on both. The superuser `postgres` has no
# password: only this script reaches it, by peer authentication on the socket.
# As root, the server runs as the system user `postgres`, since initdb and
# postgres refuse to run as root.
set -euo pipefail

script=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
subcommand=${1:-}
password=

usage() {
    sed -n '2,13s/^# \{0,1\}//p' "$script" >&2
    exit "${1:-2}"
}

# Messages go to stderr: stdout of `start` is only the path of the env file.
# The password never reaches the terminal, even inside a tool's error output.
warn() {
    local message="postgres.sh $subcommand: $*"
    [[ -z $password ]] || message=${message//"$password"/<password>}
    printf '%s\n' "$message" >&2
}
fail() {
    warn "$@"
    exit 1
}

# An unexpected failure (set -e) names its line and command.
set -E
trap 'warn "line $LINENO: \"$BASH_COMMAND\" failed"' ERR

# Cleanups that must run however the script ends: each hook gets the exit status.
exit_hooks=()
on_exit() {
    local status=$? hook
    for hook in "${exit_hooks[@]}"; do "$hook" "$status" || true; done
}
trap on_exit EXIT

# --- Who runs the server ------------------------------------------------------

if ((EUID == 0)); then server_user=postgres; else server_user=$(id -un); fi

# Runs a PostgreSQL tool as the server user, from / (root's working folder may
# be closed to it), without the caller's PG* variables (PGHOST, PGPASSWORD,
# ...), which must not steer the script's own connections.
as_server() {
    (
        for name in $(compgen -e -X '!PG*' || true); do unset "$name"; done
        cd /
        if ((EUID == 0)); then exec runuser -u "$server_user" -- "$@"; else exec "$@"; fi
    )
}

as_root() {
    if ((EUID == 0)); then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        fail "need root (or sudo) for: $*"
    fi
}

# --- Installing what is missing -------------------------------------------------

made_policy_rc_d=
remove_policy_rc_d() {
    if [[ $made_policy_rc_d ]]; then
        as_root rm -f /usr/sbin/policy-rc.d
        made_policy_rc_d=
    fi
}

apt_install() {
    command -v apt-get >/dev/null || fail "$* is missing and there is no apt-get: install it by hand"
    warn "installing $* with apt-get"
    # While installing, a policy-rc.d that forbids every action (exit 101) keeps
    # the package from starting Debian's own cluster: the script uses
    # initdb and pg_ctl directly, in folders of its own.
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        exit_hooks+=(remove_policy_rc_d)
        made_policy_rc_d=1
        as_root sh -c 'printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d && chmod 0755 /usr/sbin/policy-rc.d'
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || fail "apt-get update failed"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2 || fail "apt-get install $* failed"
    remove_policy_rc_d
}

# The bin folder of the newest PostgreSQL server installed the Debian way.
newest_bin() {
    local initdb
    initdb=$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)
    if [[ -x $initdb ]]; then dirname "$initdb"; fi
}

find_postgres() {
    bin=$(newest_bin)
    if [[ -z $bin ]]; then
        apt_install postgresql
        bin=$(newest_bin)
        [[ $bin ]] || fail "installed postgresql, yet found no /usr/lib/postgresql/*/bin/initdb"
    fi
    if ((EUID == 0)); then
        command -v runuser >/dev/null || fail "runuser (util-linux) is missing"
        if ! id -u "$server_user" >/dev/null 2>&1; then
            useradd --system --user-group --home-dir /var/lib/postgresql --no-create-home \
                --shell /bin/bash "$server_user" || fail "could not create the system user $server_user"
        fi
    fi
}

# --- One server's folder ----------------------------------------------------------

# Sets DIR (absolute), data and log for the server in folder $1.
use_dir() {
    DIR=$(cd -- "$1" 2>/dev/null && pwd -P) || fail "no folder $1"
    data=$DIR/data
    log=$DIR/server.log
}

# DIR goes unquoted into postgresql.conf's unix_socket_directories (a list), and
# the socket path DIR/.s.PGSQL.NNNNN must fit the 107 bytes of sun_path.
check_dir_name() {
    [[ $DIR =~ ^[A-Za-z0-9/._@+~:-]+$ ]] ||
        fail "$DIR: the folder's path may hold only letters, digits and / . _ - @ + ~ :"
    ((${#DIR} + 15 <= 107)) || fail "$DIR: path too long for a unix socket in it (at most 92 bytes)"
}

# For a server DIR that exists: its port, from the settings `start` wrote.
use_server() {
    use_dir "$1"
    [[ -f $data/PG_VERSION ]] || fail "no server in $DIR (no $data/PG_VERSION): 'postgres.sh start $DIR' makes one"
    port=$(sed -n 's/^port = \([0-9]*\)$/\1/p' "$data/stowage.conf" 2>/dev/null || true)
    [[ $port ]] || fail "no port in $data/stowage.conf: was $DIR made by 'postgres.sh start'?"
}

# As root, the server user must pass through every parent of DIR (a `mktemp -d`
# folder is 0700 root): whichever parent stops it gets o+x, traversal only.
let_server_reach() {
    ((EUID == 0)) || return 0
    if as_server test -x "$DIR"; then return 0; fi
    local path='' part parts
    IFS=/ read -ra parts <<<"${DIR#/}"
    for part in "${parts[@]}"; do
        path+=/$part
        if ! as_server test -x "$path"; then
            chmod o+x "$path" || fail "user $server_user cannot reach $path, nor could chmod o+x it"
            warn "let user $server_user traverse $path (chmod o+x)"
        fi
    done
}

random_port() {
    echo $((20000 + ((RANDOM << 15) | RANDOM) % 40001))
}

# A port something already listens on (a connection succeeds).
port_taken() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

server_running() {
    as_server "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1
}

# Starts the server of DIR and waits until it accepts TCP connections. If it
# does not, stops whatever came up, leaves the reason in start_problem (pg_ctl's
# words and the tail of the log of this attempt) and returns 1.
start_problem=
start_server() {
    local offset out
    offset=$(stat -c %s "$log" 2>/dev/null || echo 0)
    if out=$(as_server "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 -s start 2>&1) &&
        out=$(as_server "$bin/pg_isready" -h 127.0.0.1 -p "$port" -t 30 2>&1); then
        return 0
    fi
    start_problem="$out"$'\n'"--- tail of $log:"$'\n'"$(tail -c "+$((offset + 1))" "$log" 2>/dev/null | tail -n 20)"
    stop_server immediate >/dev/null 2>&1 || true
    return 1
}

# Stops the server of DIR in MODE (fast or immediate); nothing to do if it is
# not running. Returns 1, with a message, if it keeps running.
stop_server() {
    local out
    server_running || return 0
    if ! out=$(as_server "$bin/pg_ctl" -D "$data" -m "$1" -w -t 60 -s stop 2>&1) && server_running; then
        warn "pg_ctl stop -m $1 of $DIR failed: $out"
        return 1
    fi
}

# Runs a step quietly; on failure, names it and shows what the tool said.
step() {
    local name=$1 out
    shift
    out=$("$@" 2>&1) || fail "$name failed:"$'\n'"$(tail -n 30 <<<"$out")"
}

# --- start ------------------------------------------------------------------------

# A throwaway CA, and a certificate for localhost and 127.0.0.1 that it signs,
# so that clients can check the server with sslmode=verify-full.
make_tls() {
    local tls=$DIR/tls old_umask
    rm -rf "$tls"
    mkdir -m 0755 "$tls"
    old_umask=$(umask)
    umask 077 # keys are never readable by others, not even for a moment
    step "making the CA (openssl)" openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$tls/ca.key" -out "$tls/ca.crt" -days 365 -subj "/CN=Stowage throwaway test CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    step "making the server key (openssl)" openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$tls/server.key" -out "$tls/server.csr" -subj "/CN=localhost"
    step "signing the server certificate (openssl)" openssl x509 -req -in "$tls/server.csr" \
        -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -set_serial "0x$(openssl rand -hex 16)" -days 365 \
        -out "$tls/server.crt" -extfile <(printf '%s\n' \
            "subjectAltName = DNS:localhost, IP:127.0.0.1" \
            "basicConstraints = critical, CA:FALSE" \
            "keyUsage = critical, digitalSignature" \
            "extendedKeyUsage = serverAuth")
    umask "$old_umask"
    rm -f "$tls/server.csr"
    chmod 0644 "$tls/ca.crt" "$tls/server.crt"
    chmod 0600 "$tls/ca.key" "$tls/server.key"
    # PostgreSQL wants its key 0600 and owned by the server user.
    if ((EUID == 0)); then chown "$server_user:" "$tls/server.key"; fi
}

# Settings of a small server for tests, in data/stowage.conf, which
# postgresql.conf includes. fsync, synchronous_commit and full_page_writes keep
# their defaults: tests check that commits survive restarts and crashes.
write_settings() {
    as_server tee "$data/stowage.conf" >/dev/null <<EOF
# Written by postgres.sh: a throwaway server for tests.
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
max_connections = 200
shared_buffers = 32MB
huge_pages = off
max_worker_processes = 4
autovacuum_max_workers = 2
password_encryption = 'scram-sha-256'
ssl = on
ssl_cert_file = '$DIR/tls/server.crt'
ssl_key_file = '$DIR/tls/server.key'
shared_preload_libraries = 'pg_stat_statements'
EOF
}

# Who may connect how. The first matching line decides: the superuser only
# through the socket, by peer authentication of the server's OS user (mapped by
# pg_ident.conf), everyone else with a password; TCP with TLS (hostssl) or
# without (host).
write_access_rules() {
    as_server tee "$data/pg_hba.conf" >/dev/null <<EOF
# Written by postgres.sh.
# TYPE   DATABASE  USER      ADDRESS        METHOD
local    all       postgres                 peer map=script
local    all       all                      scram-sha-256
hostssl  all       all       127.0.0.1/32   scram-sha-256
host     all       all       127.0.0.1/32   scram-sha-256
EOF
    as_server tee "$data/pg_ident.conf" >/dev/null <<EOF
# Written by postgres.sh.
# MAPNAME  SYSTEM-USERNAME  PG-USERNAME
script     $server_user     postgres
EOF
    as_server tee -a "$data/postgresql.conf" >/dev/null <<<"include 'stowage.conf'"
}

write_env() {
    local file=$DIR/env
    printf 'export %s=%q\n' \
        STOWAGE_POSTGRES_HOST 127.0.0.1 \
        STOWAGE_POSTGRES_PORT "$port" \
        STOWAGE_POSTGRES_USER stowage \
        STOWAGE_POSTGRES_PASSWORD "$password" \
        STOWAGE_POSTGRES_DATABASE stowage \
        STOWAGE_POSTGRES_SOCKET_DIR "$DIR" \
        STOWAGE_POSTGRES_CA "$DIR/tls/ca.crt" \
        STOWAGE_POSTGRES_DIR "$DIR" >"$file.new"
    chmod 0644 "$file.new"
    mv -f "$file.new" "$file"
}

# If `start` fails halfway, no server keeps running and data/ goes, so that
# `start DIR` can simply be tried again; server.log stays, for the reason.
start_done=
undo_failed_start() {
    if (($1 != 0)) && [[ -z $start_done ]]; then
        stop_server immediate >/dev/null 2>&1 || true
        rm -rf "$data" "$DIR/env"
    fi
}

cmd_start() {
    (($# == 1)) || usage
    command -v openssl >/dev/null || apt_install openssl
    mkdir -p -- "$1" || fail "could not create $1"
    use_dir "$1"
    check_dir_name
    [[ ! -e $data ]] || fail "$data exists already: 'postgres.sh restart $DIR' reuses it; for a fresh server, 'postgres.sh stop $DIR' and remove it"
    exit_hooks+=(undo_failed_start)
    trap 'exit 130' INT
    trap 'exit 143' TERM

    # The server user writes the socket, the log and data/ in DIR.
    if ((EUID == 0)); then
        chown "$server_user:" "$DIR"
        chmod 0755 "$DIR"
    fi
    let_server_reach
    rm -f "$DIR/env"
    : >"$log"
    if ((EUID == 0)); then chown "$server_user:" "$log"; fi

    make_tls
    # --no-sync: the fresh cluster need not survive a power cut, only restarts.
    step "initdb" as_server "$bin/initdb" -D "$data" -U postgres -E UTF8 --no-locale --no-sync \
        --auth-local=peer --auth-host=reject
    write_access_rules

    # A random free port; another process may take it first, then try another.
    local up=''
    start_problem="every port tried was taken"
    for _ in $(seq 20); do
        port=$(random_port)
        if port_taken "$port"; then continue; fi
        write_settings
        if start_server; then up=1 && break; fi
        grep -qE 'could not bind|could not create any TCP/IP sockets|Address already in use' <<<"$start_problem" ||
            fail "the server did not start:"$'\n'"$start_problem"
    done
    [[ $up ]] || fail "found no free port in 20 tries:"$'\n'"$start_problem"

    password=$(openssl rand -hex 16)
    # The password goes through stdin, not the command line that ps shows.
    step "creating the role and database stowage (psql)" \
        as_server "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$port" -U postgres -d postgres <<EOF
CREATE ROLE stowage LOGIN CREATEDB PASSWORD '$password';
CREATE DATABASE stowage OWNER stowage;
\c stowage
-- The benchmarks count the statements a change costs the database.
CREATE EXTENSION pg_stat_statements;
EOF
    write_env
    start_done=1
    echo "$DIR/env"
}

# --- stop, restart, kill, resume ----------------------------------------------------

cmd_stop() {
    (($# == 1)) || usage
    use_server "$1"
    stop_server fast || exit 1
}

cmd_kill() {
    (($# == 1)) || usage
    use_server "$1"
    stop_server immediate || exit 1
}

cmd_resume() {
    (($# == 1)) || usage
    use_server "$1"
    if server_running; then return 0; fi
    if ! start_server; then
        if grep -qE 'could not bind|Address already in use' <<<"$start_problem"; then
            fail "port $port of $DIR is taken by another process now:"$'\n'"$start_problem"
        fi
        fail "the server did not start:"$'\n'"$start_problem"
    fi
}

cmd_restart() {
    (($# == 1)) || usage
    use_server "$1"
    stop_server fast || exit 1
    cmd_resume "$1"
}

# Prints what psql prints, tuples only, unaligned: the tests read it.
cmd_psql() {
    (($# == 2)) || usage
    use_server "$1"
    server_running || fail "the server in $DIR is not running"
    as_server "$bin/psql" -X -q -t -A -v ON_ERROR_STOP=1 -h "$DIR" -p "$port" -U postgres -d stowage -c "$2"
}

# --- run ------------------------------------------------------------------------------

run_dir=
child=

# Stops every server in the run's folder (its own and those tests started in
# the scratch folder), then removes the folder.
clean_run() {
    set +e
    local pidfile pid
    while IFS= read -r -d '' pidfile; do
        use_dir "${pidfile%/data/postmaster.pid}"
        if ! stop_server immediate; then
            # Last resort: the postmaster's children exit when it dies.
            pid=$(head -n 1 "$pidfile" 2>/dev/null)
            if [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == postgres ]]; then
                kill -KILL "$pid"
            fi
        fi
    done < <(find "$run_dir" -path '*/data/postmaster.pid' -print0 2>/dev/null)
    rm -rf "$run_dir" || warn "could not remove $run_dir"
}

# A signal to this script goes on to the command; `run` cleans up once the
# command is over. Before the command runs, the script just ends (and cleans up).
forward() {
    if [[ $child ]]; then
        kill -s "$1" "$child" 2>/dev/null || true
    else
        exit $((128 + $(kill -l "$1")))
    fi
}

cmd_run() {
    if [[ ${1:-} == -- ]]; then shift; fi
    (($# > 0)) || usage
    run_dir=$(mktemp -d "${TMPDIR:-/tmp}/stowage-pg.XXXXXXXX") || fail "mktemp -d failed"
    exit_hooks+=(clean_run)
    trap 'forward INT' INT
    trap 'forward TERM' TERM
    trap 'forward HUP' HUP

    local env_file status
    env_file=$("$script" start "$run_dir") || exit
    mkdir -m 0755 "$run_dir/scratch"
    # shellcheck source=/dev/null
    source "$env_file"
    export STOWAGE_POSTGRES_SCRIPT=$script
    export STOWAGE_POSTGRES_SCRATCH=$run_dir/scratch

    # In the background, so that this script can take signals while it runs,
    # but with the terminal's stdin, and with SIGINT and SIGQUIT back to their
    # defaults (a background job of a script ignores them), so Ctrl-C stops it.
    (
        trap - INT QUIT TERM HUP
        exec "$@"
    ) <&0 &
    child=$!
    # `wait` returns early when a signal comes in; the command may still run.
    while :; do
        status=0
        wait "$child" || status=$?
        if ! kill -0 "$child" 2>/dev/null; then
            status=0
            wait "$child" || status=$? # its real status, remembered by bash
            break
        fi
    done
    exit "$status"
}

# --- main --------------------------------------------------------------------------------

case $subcommand in
start | stop | restart | kill | resume | psql | run)
    shift
    find_postgres
    "cmd_$subcommand" "$@"
    ;;
-h | --help | help) usage 0 ;;
*) usage ;;
esac
