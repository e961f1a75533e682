//go:build !unix

package runfiles

import "os"

// tryLock does not lock where flock is missing: concurrent writers into
// one directory are not detected there.
func tryLock(*os.File) (busy, held bool, err error) { return false, false, nil }
