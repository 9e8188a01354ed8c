package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The last recording: the file of the last run --record that a run
// kept, remembered for -c (run --continue-last), as llm -c goes on with
// the last conversation. It is one line holding the file's absolute path,
// in $XDG_STATE_HOME/toolcall (else ~/.local/state/toolcall): state of
// this user's, not a setting, so not in the environment or a flag.

// lastRecordingFile is where the last recording's path is kept; "" when
// there is no home to keep it in.
func lastRecordingFile() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "toolcall", "last-recording")
}

// rememberRecording notes path as the last recording. It is a
// convenience for -c, which says so when it finds none: a home that
// cannot be written (a read-only container) costs nothing else, so
// nothing is said here.
func rememberRecording(path string) {
	state := lastRecordingFile()
	if state == "" {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil || os.MkdirAll(filepath.Dir(state), 0o700) != nil {
		return
	}
	_ = os.WriteFile(state, []byte(abs+"\n"), 0o600)
}

// lastRecording is the path rememberRecording noted last.
func lastRecording() (string, error) {
	state := lastRecordingFile()
	data, err := os.ReadFile(state)
	if state == "" || errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("-c: no recording to go on from (none noted in %s): record a run with --record FILE first, or name a transcript with --continue FILE", state)
	}
	if err != nil {
		return "", fmt.Errorf("-c: reading the last recording's name: %w", err)
	}
	path := strings.TrimSpace(string(data))
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("-c: the last recording, %s, is gone: name a transcript with --continue FILE", path)
	}
	return path, nil
}
