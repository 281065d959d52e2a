"""``python -m sbert_workbook ...``: the command line lives in ``sbert_workbook.cli``."""
import sys

from sbert_workbook.cli import main

if __name__ == "__main__":
    sys.exit(main())
