"""Reading a built suite, above the build: where a suite is (resources), one case folder read
back as a consumer reads it (case_folder), what a suite covers (coverage), how two differ
(diff), and packing a suite or reading it as an archive (pack, archive). Nothing here is
imported by a build, so editing it keeps a no-op build a no-op."""
