# SPDX-License-Identifier: AGPL-3.0-or-later
"""Removes invisible text (render mode 3, the way OCR text layers are drawn) from every page of a PDF.

Usage: octavo_strip_text.py INPUT OUTPUT   (prints the number of text objects removed)

OCRmyPDF 14's --redo-ocr strips invisible text from a page's own content stream only. Text layers that live in a
Form XObject - OCRmyPDF's own output, `qpdf --overlay`, many scanner tools - survive, and the page ends up with
two text layers (measured: the words of a page OCR'd twice by OCRmyPDF are doubled). This walks the page content
and every Form XObject it uses, recursively, and drops the BT..ET blocks whose text is all drawn invisibly.
Images and every other stream are copied byte for byte (no stream is decoded or recompressed).

Run with the Python that runs OCRmyPDF (Debian: /usr/bin/python3), which has pikepdf.
"""

import sys

import pikepdf
from pikepdf import Name, Operator

SHOW = {Operator("Tj"), Operator("TJ"), Operator("'"), Operator('"')}
# Text state outlives ET and may be set outside a text object: kept when the block that set it is dropped.
TEXT_STATE = {Operator(op) for op in ("Tc", "Tw", "Tz", "TL", "Tf", "Tr", "Ts")}
BT, ET, TR, Q_PUSH, Q_POP = Operator("BT"), Operator("ET"), Operator("Tr"), Operator("q"), Operator("Q")


def strip(instructions):
    """Returns (instructions without invisible text objects, number removed)."""
    out = []
    removed = 0
    mode = 0
    stack = []
    block = None  # the BT..ET block being read: [instructions, shows visible text?, its text state operators]
    for inst in instructions:
        operator = inst.operator if hasattr(inst, "operator") else inst[1]
        operands = inst.operands if hasattr(inst, "operands") else inst[0]
        if block is None:
            if operator == BT:
                block = [[inst], False, []]
                continue
            if operator == Q_PUSH:
                stack.append(mode)
            elif operator == Q_POP and stack:
                mode = stack.pop()
            elif operator == TR and operands:
                mode = int(operands[0])
            out.append(inst)
            continue
        block[0].append(inst)
        if operator in TEXT_STATE:
            block[2].append(inst)
        if operator == TR and operands:
            mode = int(operands[0])
        elif operator in SHOW and mode != 3:
            block[1] = True
        elif operator == ET:
            if block[1]:
                out.extend(block[0])
            else:
                removed += 1
                out.extend(block[2])
            block = None
    if block is not None:  # unterminated text object: keep as it was
        out.extend(block[0])
    return out, removed


def strip_form_xobjects(resources, seen):
    """Strips the Form XObjects named in a resource dictionary, and the ones they use, each once."""
    removed = 0
    if not isinstance(resources, pikepdf.Dictionary):
        return 0
    xobjects = resources.get(Name.XObject)
    if not isinstance(xobjects, pikepdf.Dictionary):
        return 0
    for key in list(xobjects.keys()):
        xobj = xobjects[key]
        if not isinstance(xobj, pikepdf.Stream) or xobj.get(Name.Subtype) != Name.Form:
            continue
        if xobj.is_indirect:
            if xobj.objgen in seen:
                continue
            seen.add(xobj.objgen)
        removed += strip_form_xobjects(xobj.get(Name.Resources), seen)
        kept, dropped = strip(pikepdf.parse_content_stream(xobj))
        if dropped:
            # Written uncompressed; save() Flate-compresses it again (lossless).
            xobj.write(pikepdf.unparse_content_stream(kept))
            removed += dropped
    return removed


def main():
    source, target = sys.argv[1], sys.argv[2]
    removed = 0
    with pikepdf.open(source) as pdf:
        seen = set()
        for page in pdf.pages:
            try:
                resources = page.resources  # inherited from the page tree when the page has none
            except (AttributeError, KeyError, TypeError):
                resources = page.obj.get(Name.Resources)
            removed += strip_form_xobjects(resources, seen)
            kept, dropped = strip(pikepdf.parse_content_stream(page))
            if dropped:
                page.obj.Contents = pdf.make_stream(pikepdf.unparse_content_stream(kept))
                removed += dropped
        # Streams are copied as they are: nothing is decoded, images keep their bytes.
        pdf.save(
            target,
            stream_decode_level=pikepdf.StreamDecodeLevel.none,
            object_stream_mode=pikepdf.ObjectStreamMode.preserve,
            fix_metadata_version=False,
        )
    print(removed)


if __name__ == "__main__":
    main()
