package sandboxreset

import "context"

// SetAfterLoad installs f to run after the load, in the reset's
// transaction, until the test ends.
func SetAfterLoad(f func(context.Context) error) func() {
	afterLoad = f
	return func() { afterLoad = nil }
}
