# -*- Python -*-
# Runs tilec's GoogleTest unit tests under lit, so check-tilec covers them.

import os

import lit.formats

config.name = "TILEC-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.tilec_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
