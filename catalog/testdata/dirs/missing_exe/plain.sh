#!/bin/sh
# NOEXEC: the test leaves this file without its executable bit.
