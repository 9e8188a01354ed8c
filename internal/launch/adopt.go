package launch

import "sync"

// Orphans: a child that leaves its process group (setsid, a double fork)
// is out of reach of the group's signals. Where the platform allows it,
// AdoptOrphans makes this process a child subreaper, so that such a
// descendant is re-parented to us rather than to init when its parent
// dies, and can be killed.
//
// Which of our children is an orphan? Every child this process starts goes
// through Run, so a child of ours that no Run is waiting for was adopted,
// or is the leftover of a run that ended (a SIGKILLed group member
// re-parented when its leader died). Runs may go on side by side (exec
// --parallel), and an orphan cannot be told apart from one another run is
// still using (a tool may start a daemon and then talk to it), so orphans
// are killed and reaped only when no run is live: when the last of the
// runs going on ends. The count of live runs is raised before the fork, so
// a sweep never sees a run's own leader as an orphan, and sweeps happen
// under the same lock, so none can overlap a start. Sweeping also reaps
// the orphans that died on their own, which would otherwise stay zombies,
// since nothing else waits for them.
var adoption struct {
	sync.Mutex
	on   bool // this process adopts orphans and sweeps them
	live int  // runs whose leader is not yet reaped
}

// AdoptOrphans makes this process adopt the orphaned descendants of the
// children it runs, and kill them when the runs end. It reports whether
// the platform allows it (Linux does). Only a process whose children all
// start through Run may call it: a child started any other way would be
// taken for an orphan and killed.
func AdoptOrphans() bool {
	adoption.Lock()
	defer adoption.Unlock()
	if !adoption.on {
		adoption.on = becomeSubreaper()
	}
	return adoption.on
}

// started counts a run as live; call it before the fork.
func started() {
	adoption.Lock()
	adoption.live++
	adoption.Unlock()
}

// ended counts a run as over once its leader is reaped, and sweeps the
// orphans when it was the last one.
func ended() {
	adoption.Lock()
	defer adoption.Unlock()
	adoption.live--
	if adoption.live == 0 && adoption.on {
		sweepOrphans()
	}
}
