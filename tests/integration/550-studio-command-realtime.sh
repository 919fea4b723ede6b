#!/bin/sh
# The command table of 551-studio-command-table.sh at the reference
# agent's timing: 30 s heartbeats (--heartbeat-interval's default), the
# UI's 60 s cycles, the fake Studio's realistic latency; start -> change
# plugins -> ad-hoc -> stop -> start (about 8 minutes).
HB_INTERVAL=30 TABLE_DURATION=60 TABLE_TIMEOUT=40 TABLE=realtime
export HB_INTERVAL TABLE_DURATION TABLE_TIMEOUT TABLE
. "$top_srcdir/tests/integration/551-studio-command-table.sh"
