// Package packaging checks the Linux packages a release ships, from the
// outside, with the tools a user's system would read them with: the .deb
// (dpkg-deb), the .rpm (rpm) and the .tar.gz (archive/tar), and the
// SHA256SUMS beside them.
//
// It runs only when FOYA_PACKAGES names the folder that holds them:
// make test-package points it at build/bin (the .deb and .rpm of make
// package and make package-rpm), make test-release-linux at the folder of
// scripts/release-linux.sh's dry run, with FOYA_PACKAGES_RELEASE=1, which
// also requires the .tar.gz and SHA256SUMS. Plain go test ./... skips it.
package packaging

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"foya/backend/testwait"
)

// entry is a file a package installs: its mode and the SHA-256 of its bytes.
type entry struct {
	mode   string // as ls -l shows it: -rwxr-xr-x
	sha256 string
}

// wantFiles are the files every package installs, with their modes; the
// tarball holds the same under its top folder, without /usr.
func wantFiles() map[string]string {
	w := map[string]string{
		"/usr/bin/foya":                        "-rwxr-xr-x",
		"/usr/lib/foya/foya-sandbox":           "-rwxr-xr-x",
		"/usr/share/applications/foya.desktop": "-rw-r--r--",
	}
	for _, s := range []int{16, 32, 48, 64, 128, 256, 512} {
		w[fmt.Sprintf("/usr/share/icons/hicolor/%dx%d/apps/foya.png", s, s)] = "-rw-r--r--"
	}
	return w
}

// TestLinuxPackages: the .deb and the .rpm install the same bytes (the
// binary, its sandbox helper, the menu entry, seven icon sizes) with the same modes, each
// declares the libraries the binary needs under its system's names, both
// carry the version the packaged binary's --version prints, the menu entry
// passes desktop-file-validate, and in a release the .tar.gz holds the same
// files and SHA256SUMS checks every package.
// spec: W4
func TestLinuxPackages(t *testing.T) {
	dir := os.Getenv("FOYA_PACKAGES")
	if dir == "" {
		t.Skip("Linux packages: set FOYA_PACKAGES to the folder holding them (make test-package and make test-release-linux do)")
	}
	release := os.Getenv("FOYA_PACKAGES_RELEASE") == "1"
	for _, tool := range []string{"dpkg-deb", "rpm", "desktop-file-validate"} {
		if _, err := exec.LookPath(tool); err != nil {
			testwait.Missing(t, tool+" (make deps-system installs it)", "the Linux packages' contents")
		}
	}
	deb := one(t, dir, "foya_*.deb")
	rpm := one(t, dir, "foya-*.rpm")

	// The .deb: unpacked, its binary run, its menu entry validated.
	unpacked := t.TempDir()
	run(t, "dpkg-deb", "-x", deb, unpacked)
	debFiles := filesUnder(t, unpacked)
	if err := sameFiles(debFiles, wantFiles()); err != nil {
		t.Errorf("%s: %v", filepath.Base(deb), err)
	}
	out := run(t, filepath.Join(unpacked, "usr/bin/foya"), "--version")
	m := regexp.MustCompile(`^foya (\S+) \(`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the packaged foya --version says %q; want foya VERSION (commit …)", out)
	}
	version := m[1]
	pkgVersion := strings.Replace(version, "-", "~", 1) // a pre-release sorts before its release in both dpkg and rpm
	t.Logf("packaged: %s", strings.TrimSpace(out))
	validate(t, filepath.Join(unpacked, "usr/share/applications/foya.desktop"))
	// The sandbox helper is of a stamped build (foya starts it only when its
	// stamp is foya's own; unstamped, foya would start itself instead).
	if stamp := strings.TrimSpace(run(t, filepath.Join(unpacked, "usr/lib/foya/foya-sandbox"), "__sandbox-stamp")); !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(stamp) {
		t.Errorf("the packaged sandbox helper's stamp is %q; want 32 hex digits (built with make build's or the release's ldflags)", stamp)
	}

	field := func(name string) string { return strings.TrimSpace(run(t, "dpkg-deb", "-f", deb, name)) }
	debArch := field("Architecture")
	if got := field("Package"); got != "foya" {
		t.Errorf(".deb Package %q; want foya", got)
	}
	if got := field("Version"); got != pkgVersion {
		t.Errorf(".deb Version %q; want %q (the binary's %s)", got, pkgVersion, version)
	}
	if got, want := field("Depends"), "libgtk-3-0 | libgtk-3-0t64, libwebkit2gtk-4.1-0"; got != want {
		t.Errorf(".deb Depends %q; want %q", got, want)
	}
	// make package names it with the package's version, a release with the
	// binary's (scripts/release-linux.sh: a ~ in a download's name is not
	// kept everywhere).
	if want := fmt.Sprintf("foya_%s_%s.deb", pkgVersion, debArch); filepath.Base(deb) != want && filepath.Base(deb) != fmt.Sprintf("foya_%s_%s.deb", version, debArch) {
		t.Errorf(".deb named %s; want %s", filepath.Base(deb), want)
	}
	if out := run(t, "dpkg-deb", "-I", deb); strings.Contains(out, "postinst") || strings.Contains(out, "preinst") {
		t.Errorf(".deb has maintainer scripts; want none (dpkg's triggers refresh the caches):\n%s", out)
	}

	// The .rpm: listed by rpm itself, each file's digest against the .deb's.
	rpmArch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[debArch]
	if rpmArch == "" {
		t.Fatalf(".deb Architecture %q: no rpm architecture known for it", debArch)
	}
	q := func(format string) string { return run(t, "rpm", "-qp", "--qf", format, rpm) }
	if got, want := q("%{NAME} %{VERSION} %{RELEASE} %{ARCH}"), "foya "+pkgVersion+" 1 "+rpmArch; got != want {
		t.Errorf(".rpm is %q; want %q", got, want)
	}
	if want := fmt.Sprintf("foya-%s-1.%s.rpm", pkgVersion, rpmArch); filepath.Base(rpm) != want && filepath.Base(rpm) != fmt.Sprintf("foya-%s-1.%s.rpm", version, rpmArch) {
		t.Errorf(".rpm named %s; want %s", filepath.Base(rpm), want)
	}
	if got := q("%{FILEDIGESTALGO}"); got != "8" {
		t.Fatalf(".rpm file digests are algorithm %s; want 8 (SHA-256)", got)
	}
	rpmFiles := map[string]entry{}
	for line := range strings.SplitSeq(strings.TrimSpace(q(`[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILEDIGESTS} %{FILENAMES}\n]`)), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf(".rpm file line %q: want mode, owner, digest, name", line)
		}
		if f[1] != "root:root" {
			t.Errorf(".rpm %s is owned by %s; want root:root", f[3], f[1])
		}
		if f[0][0] == 'd' {
			continue
		}
		rpmFiles[f[3]] = entry{mode: f[0], sha256: f[2]}
	}
	if err := sameFiles(rpmFiles, wantFiles()); err != nil {
		t.Errorf("%s: %v", filepath.Base(rpm), err)
	}
	for name, e := range rpmFiles {
		if d, ok := debFiles[name]; ok && d.sha256 != e.sha256 {
			t.Errorf("%s differs between the .rpm and the .deb", name)
		}
	}
	requires := strings.Fields(run(t, "rpm", "-qp", "--requires", rpm))
	for _, lib := range []string{"libgtk-3.so.0()(64bit)", "libwebkit2gtk-4.1.so.0()(64bit)"} {
		if !slices.Contains(requires, lib) {
			t.Errorf(".rpm requires %q; want %s among them", requires, lib)
		}
	}

	if !release {
		return
	}
	// The tarball: the same files under foya-VERSION-linux-ARCH/.
	top := fmt.Sprintf("foya-%s-linux-%s", version, debArch)
	tgz := filepath.Join(dir, top+".tar.gz")
	tarFiles := readTarball(t, tgz, top)
	want := map[string]string{}
	for name, mode := range wantFiles() {
		want[strings.TrimPrefix(name, "/usr")] = mode
	}
	if err := sameFiles(tarFiles, want); err != nil {
		t.Errorf("%s: %v", filepath.Base(tgz), err)
	}
	for name, e := range tarFiles {
		if d, ok := debFiles["/usr"+name]; ok && d.sha256 != e.sha256 {
			t.Errorf("%s differs between the tarball and the .deb", name)
		}
	}

	// SHA256SUMS: every package, each sum right (sha256sum -c, as the
	// README tells users to check them).
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{deb, rpm, tgz} {
		if !regexp.MustCompile(`(?m)^[0-9a-f]{64}  ` + regexp.QuoteMeta(filepath.Base(f)) + `$`).Match(sums) {
			t.Errorf("SHA256SUMS lacks %s:\n%s", filepath.Base(f), sums)
		}
	}
	cmd := exec.Command("sha256sum", "--strict", "-c", "SHA256SUMS")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c SHA256SUMS: %v\n%s", err, out)
	}
}

// one is the only file of dir matching pattern.
func one(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 {
		t.Fatalf("%s: %d files match %s (%q); want one", dir, len(m), pattern, m)
	}
	return m[0]
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

// validate runs desktop-file-validate, which exits 0 on warnings too:
// any line it prints fails the test.
func validate(t *testing.T, file string) {
	t.Helper()
	out, err := exec.Command("desktop-file-validate", file).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("desktop-file-validate %s: %v\n%s", file, err, out)
	}
}

// filesUnder lists the regular files under root by their absolute path in
// the installed system; anything else but folders fails the test.
func filesUnder(t *testing.T, root string) map[string]entry {
	t.Helper()
	files := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is a %s; want regular files only", p, info.Mode().Type())
		}
		sum, err := fileSum(p)
		if err != nil {
			return err
		}
		files["/"+filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))] = entry{mode: info.Mode().String(), sha256: sum}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func fileSum(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readTarball lists a gzipped tarball's files below its one top folder,
// owned by root; an entry outside it, or a link, fails the test.
func readTarball(t *testing.T, file, top string) map[string]entry {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	tr := tar.NewReader(gz)
	files := map[string]entry{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		if name != top && !strings.HasPrefix(name, top+"/") {
			t.Errorf("%s: %s is outside %s/", filepath.Base(file), h.Name, top)
			continue
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: %s is owned by %d:%d; want 0:0", filepath.Base(file), h.Name, h.Uid, h.Gid)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg:
		default:
			t.Errorf("%s: %s is of tar type %c; want files and folders only", filepath.Base(file), h.Name, h.Typeflag)
			continue
		}
		h256 := sha256.New()
		if _, err := io.Copy(h256, tr); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		files[strings.TrimPrefix(name, top)] = entry{mode: h.FileInfo().Mode().String(), sha256: hex.EncodeToString(h256.Sum(nil))}
	}
	return files
}

// sameFiles says how got differs from want (name to mode), or nil.
func sameFiles(got map[string]entry, want map[string]string) error {
	var diffs []string
	for name, mode := range want {
		e, ok := got[name]
		switch {
		case !ok:
			diffs = append(diffs, "lacks "+name)
		case e.mode != mode:
			diffs = append(diffs, fmt.Sprintf("%s has mode %s; want %s", name, e.mode, mode))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			diffs = append(diffs, "has "+name+", which it should not")
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	slices.Sort(diffs)
	return errors.New(strings.Join(diffs, "; "))
}
