// The sentences every speed figure is measured on: the native CLI's kBenchSentences
// (src/cli/main.cpp), so `heed bench`, `npm run bench` and bench/ort time the same work.
export const SENTENCES = [
  'This package contains the development files for the library.',
  'A simple text editor for the terminal.',
  'It provides a command-line interface to manage virtual machines.',
  'The program reads a configuration file and starts the server.',
  'This is a dummy package to ease the transition.',
  'Documentation for the Python bindings is included in this package.',
  'The library supports reading and writing images in many formats.',
  'A fast and lightweight window manager for the X Window System.',
  'This tool converts audio files between different formats.',
  'It can be used to monitor network traffic in real time.',
  'The plugin adds support for spell checking in several languages.',
  'Shared library for accessing the database from C programs.',
  'This package provides the command-line utilities.',
  'The game features several levels and a level editor.',
  'Fonts for displaying mathematical formulas on the screen.',
  'A graphical front-end to manage software packages.',
];

/** source words, the unit of every words/s figure */
export const WORDS = SENTENCES.reduce((n, s) => n + s.split(/\s+/).filter(Boolean).length, 0);
