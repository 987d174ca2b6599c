"""Reading a built suite as a whole, above the build: where a suite is (resources), what it
covers (coverage), how two differ (diff), and packing or reading it as an archive (pack,
archive). Nothing here is imported by a build, so editing it keeps a no-op build a no-op."""
