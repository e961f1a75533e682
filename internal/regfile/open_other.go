//go:build !unix

package regfile

import "os"

// open stats path first, so that a FIFO is not opened; Open checks what
// it opened.
func open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return os.Open(path)
}
