"""The reports of a verify run (text, Markdown, HTML, JSON, JUnit, xfail files), reports merged
from files, and the conformance notes that explain a disagreement."""
