# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of this module's documentation:
#
#   sphinx-build -W -b html Documentation OUT
#
# kernel-doc comments of our sources are pulled in by the kernel's own
# Sphinx extension (Documentation/sphinx/kerneldoc.py) and its
# scripts/kernel-doc, both used where they are, in the kernel source
# that scripts/test-kernel --source extracts (or $KSRC).
import os
import subprocess
import sys

top = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))


def kernel_source():
    """The extracted kernel source: $KSRC, or scripts/test-kernel's."""
    ksrc = os.environ.get('KSRC')
    if not ksrc:
        ksrc = subprocess.run([os.path.join(top, 'scripts/test-kernel'),
                               '--source'], check=True, text=True,
                              stdout=subprocess.PIPE).stdout.strip()
    return ksrc


ksrc = kernel_source()
sys.path.insert(0, os.path.join(ksrc, 'Documentation/sphinx'))

project = 'rdma_cm, out of tree'
copyright = 'the authors; GPL-2.0'
extensions = ['kerneldoc']
kerneldoc_bin = os.path.join(ksrc, 'scripts/kernel-doc')
kerneldoc_srctree = top
kerneldoc_verbosity = 0

# The results tables and plots of benchmarks.rst, from the benchmarks'
# JSON (Documentation/bench/*.json) by scripts/bench-report, every build.
bench = os.path.join(top, 'Documentation/bench')
subprocess.run([os.path.join(top, 'scripts/bench-report'), '--out',
                os.path.join(bench, 'generated')] +
               sorted(os.path.join(bench, f) for f in os.listdir(bench)
                      if f.endswith('.json')), check=True)

master_doc = 'index'
exclude_patterns = ['_build', 'bench/generated']
primary_domain = 'c'
highlight_language = 'none'

# Attributes in our prototypes that Sphinx's C parser does not know.
c_id_attributes = ['__init', '__exit', '__printf', '__must_check',
                   '__always_inline', '__maybe_unused', '__cold',
                   'VISIBLE_IF_KUNIT']

html_theme = 'alabaster'
html_show_sourcelink = False
# sphinx-build -b man: xrping(8).
man_pages = [('man/xrping', 'xrping',
              'ping-pong and RDMA test tool of the xrdma transport', [], 8)]
