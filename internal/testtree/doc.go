// Package testtree compares folders in tests: releases must be
// byte-identical across workers, resumes, shards and cached reruns.
//
// Hashes maps every file below a folder, by its slash-separated relative
// path, to its sha256. A test makes the same release two ways and walks
// the two maps, so a failure names the file that differs rather than only
// saying that something did, and compares their sizes for a file that
// only one side has.
//
// Only file contents and relative paths count: modes, times and empty
// folders are left out, because a release promises the same bytes, not
// the same metadata. Any error walking or reading fails the test at once,
// since a partial map would make two different trees look alike.
package testtree
