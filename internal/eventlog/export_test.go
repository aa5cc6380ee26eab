package eventlog

// SetBeforeRun makes every numbering run of the sequencer call f first
// (nil: nothing), for TestKilledBeforeNumbering's child process.
func SetBeforeRun(f func()) {
	if f == nil {
		beforeRun.Store(nil)
		return
	}
	beforeRun.Store(&f)
}
