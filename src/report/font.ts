/**
 * The one font of every chart, shipped in node_modules (dejavu-fonts-ttf) rather than looked up on
 * the machine: a PNG rendered here and one rendered in CI have the same text, and the HTML embeds
 * the same file so a browser without DejaVu installed still draws the labels.
 */
import path from 'node:path';

export const FONT_FAMILY = 'DejaVu Sans';

const FONT_DIR = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');

export const FONT_FILES = {
  regular: path.join(FONT_DIR, 'DejaVuSans.ttf'),
  bold: path.join(FONT_DIR, 'DejaVuSans-Bold.ttf'),
};
