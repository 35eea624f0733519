// Package realpath says what a path really names: the path made absolute
// with every symbolic link on the way resolved, as far as the path
// exists. synth decides what it may write or delete under a folder (an
// out dir, the -o of merge, export, report and the importers) by what is
// there, and a link would let it look at one folder and write into
// another: --out F, a link to the user's own folder, must be judged by
// that folder's files. Resolve gives the path to judge and to write
// through; Within tells whether one path lies in another once both are
// resolved, so that another spelling of a release's folder (a link, ..,
// a trailing slash) is still seen as the release.
//
// The package only reads the file system (readlink, stat); it holds no
// state.
package realpath
