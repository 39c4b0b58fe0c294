// "Open a model…": a model from this device's files — a Heed model (.heed), or a Marian bundle
// as Firefox Translations and OPUS-MT ship it — chosen with the file picker or dropped on the
// translate panel, read in this page and started in a worker (nothing is uploaded), then listed
// in the model select beside the server's models. Which file is which: data/model-files.js.
// The model loaded before stays until the new one is up; a failure leaves it in place.

import { el } from '../widgets/ui.js';
import { page } from './page.js';
import { progress, showMessage, showStatus } from './status.js';
import { pageThreads, showAbout, threadsText } from './models.js';
import { sortModelFiles, isGzip } from '../data/model-files.js';

/** A file's bytes, gunzipped when its name ends in .gz. */
async function bytesOf(file) {
  if (!isGzip(file.name)) return new Uint8Array(await file.arrayBuffer());
  const stream = file.stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A worker translator on a plan's files, its vocabularies in the order `vocabs`. */
async function spawn(plan, vocabs) {
  const { spawnTranslator } = await import('../../lib/heed-worker.js');
  const threads = pageThreads();
  if (plan.kind === 'heed') return spawnTranslator({ model: await bytesOf(plan.model), threads });
  // why: the engine tells a vocab.yml from a .spm by its content; each kind keeps its order
  const [model, vocabBytes, shortlist] = await Promise.all([
    bytesOf(plan.model),
    Promise.all([...(plan.maps ?? []), ...vocabs].map(bytesOf)),
    plan.shortlist ? bytesOf(plan.shortlist) : null,
  ]);
  const { source, target } = plan;
  return spawnTranslator({
    marian: { model, vocabs: vocabBytes, shortlist, source, target },
    threads,
  });
}

/**
 * Opens a plan's model: {translator, plan} with the plan's vocabularies in the order that
 * worked. Two vocabularies the names did not tell apart are tried in the order chosen, then
 * (when the engine says a vocabulary's size does not fit the model) the other way round.
 */
async function openPlan(plan) {
  try {
    return { translator: await spawn(plan, plan.vocabs ?? []), plan };
  } catch (err) {
    const sizes = /vocabulary has \d+ pieces/.test(err?.message ?? '');
    if (plan.kind !== 'marian' || plan.told || plan.vocabs.length !== 2 || !sizes) throw err;
    const vocabs = [plan.vocabs[1], plan.vocabs[0]];
    try {
      return { translator: await spawn(plan, vocabs), plan: { ...plan, vocabs, told: 'sizes' } };
    } catch {
      throw err;
    }
  }
}

/** What the status line says of an opened model: "Opened x: Marian, SSRU decoder, …". */
function describe(name, info, ms) {
  const cfg = info?.config ?? {};
  let marian = null;
  try {
    marian = JSON.parse(info?.metadata?.['heed.marian'] ?? 'null');
  } catch {
    /* not a Marian model */
  }
  const dirs = (info?.directions ?? []).filter((d) => d !== 'und-und');
  const parts = [
    marian ? 'Marian' : 'Heed model',
    cfg.decoder_self === 'ssru' && 'SSRU decoder',
    marian?.weights,
    cfg.encoder_layers && `${cfg.encoder_layers}+${cfg.decoder_layers} layers × ${cfg.heads} heads`,
    dirs.length && dirs.map((d) => d.replace('-', ' → ')).join(', '),
    info?.shortlists?.length && 'with a shortlist',
  ].filter(Boolean);
  const took = `from this device in ${(ms / 1000).toFixed(2)} s${threadsText(info)}`;
  return `Opened ${name}: ${parts.join(', ')} — ${took}`;
}

/** The line under the source text for a local model: its files, and which vocabulary is which. */
function aboutText(plan) {
  const parts = [`From this device, read in this page (nothing is uploaded): ${plan.model.name}`];
  if (plan.kind === 'marian') {
    const [a, b] = plan.vocabs;
    if (!b) parts.push(`shared vocabulary ${a.name}`);
    else {
      const how =
        plan.told === 'you'
          ? 'as you swapped them'
          : plan.told === 'sizes'
            ? 'by their sizes, as the names did not say'
            : plan.told
              ? 'by their names'
              : 'in the order chosen, as the names did not say — swap them if the translation looks wrong';
      parts.push(`source vocabulary ${a.name}, target vocabulary ${b.name} (${how})`);
    }
    if (plan.maps?.length)
      parts.push(`ids from ${plan.maps.map((f) => f.name).join(' and ')} (OPUS-MT's vocab.yml)`);
    if (plan.shortlist) parts.push(`shortlist ${plan.shortlist.name}`);
    if (plan.source === 'und') parts.push('languages not in the file names (und)');
  }
  if (plan.ignored.length) parts.push(`left aside: ${plan.ignored.map((f) => f.name).join(', ')}`);
  return `${parts.join('; ')}.`;
}

/**
 * The models.json-like entries of an opened model: one per direction (a .heed file may hold
 * several; they share one translator, as the server's multi-direction files do).
 */
function entriesOf(plan, translator, n) {
  const dirs = translator.info?.directions ?? [];
  const many = dirs.length > 1;
  return (dirs.length ? dirs : ['']).map((dir) => {
    const [source, to] = dir.split('-');
    return {
      id: `local-${n}${many ? `-${to}` : ''}`,
      file: `local:${n}`,
      name: `${plan.model.name}${many ? ` → ${to}` : ''} (this device)`,
      ...(source && source !== 'und' && { source }),
      ...(many && { to }),
      about: aboutText(plan),
      local: plan,
    };
  });
}

/** The model-about line of a local entry, with "Swap vocabularies" when the names did not say. */
function showLocalAbout(app, entry) {
  showAbout(entry);
  const plan = entry.local;
  if (plan.kind !== 'marian' || plan.vocabs.length !== 2 || plan.told === true) return;
  const swap = el('button.swap-vocabs', {
    type: 'button',
    text: 'Swap vocabularies',
    onclick: () => {
      const now = entry.local;
      const swapped = { ...now, vocabs: [now.vocabs[1], now.vocabs[0]], told: 'you' };
      for (const e of app.models.filter((m) => m.file === entry.file)) {
        e.local = swapped;
        e.about = aboutText(swapped);
      }
      showLocalAbout(app, entry); // why: says the new order even if it then fails to open
      app.forgetModel(entry.file);
      app.translate();
    },
  });
  page().modelAbout.append(' ', swap);
}

/**
 * The translator of a local entry for App.loadModel: the one just opened, or (chosen again
 * after another model) a new one from the same files, with status and progress as a download's.
 */
export async function openLocal(app, entry, current = () => true) {
  if (entry.opened) {
    const translator = entry.opened;
    for (const e of app.models) if (e.file === entry.file) e.opened = null;
    showLocalAbout(app, entry);
    return translator;
  }
  const root = document.documentElement;
  progress.start(`Opening ${entry.name}…`);
  showStatus(`Opening ${entry.name}…`);
  root.dataset.heed = 'loading';
  const t0 = performance.now();
  try {
    const { translator, plan } = await openPlan(entry.local);
    for (const e of app.models) if (e.file === entry.file) e.local = plan;
    if (!current()) return translator;
    showStatus(describe(plan.model.name, translator.info, performance.now() - t0));
    showLocalAbout(app, entry);
    root.dataset.heed = 'loaded';
    return translator;
  } catch (err) {
    if (!current()) throw err;
    root.dataset.heed = 'load-failed';
    showStatus(`Could not open ${entry.name}`);
    showMessage(`The model “${entry.name}” could not be opened from its files — ${why(err)}`);
    throw err;
  } finally {
    if (current()) progress.done();
  }
}

const why = (err) => (err?.code ? `${err.code}: ${err.message}` : (err?.message ?? String(err)));

let opened = 0; // local models opened so far (their ids)
let latest = 0; // the newest open: an older one that lands later is dropped

/**
 * Opens `files` as a model: on success it is listed and chosen in the model select and the
 * text is translated with it; on failure the page says why and the model before stays.
 */
async function openFiles(app, files) {
  const root = document.documentElement;
  const names = files.map((f) => f.name).join(', ');
  let plan;
  try {
    plan = sortModelFiles(files);
  } catch (err) {
    root.dataset.open = 'failed';
    showMessage(`Could not open a model from ${names || 'these files'}: ${err.message}.`);
    return;
  }
  const ticket = ++latest;
  const before = page().modelStatus.textContent;
  root.dataset.open = 'opening';
  progress.start(`Opening ${plan.model.name} in this page (nothing is uploaded)…`);
  const t0 = performance.now();
  try {
    const got = await openPlan(plan);
    if (ticket !== latest) return got.translator.dispose();
    const entries = entriesOf(got.plan, got.translator, ++opened);
    for (const e of app.models.filter((m) => m.opened)) {
      e.opened.dispose(); // why: opened before and never chosen: its worker is not needed
      e.opened = null;
    }
    entries[0].opened = got.translator;
    app.models.push(...entries);
    addOptions(entries);
    showStatus(describe(got.plan.model.name, got.translator.info, performance.now() - t0));
    root.dataset.open = 'opened';
    const select = page().modelSelect;
    select.value = entries[0].id;
    select.dispatchEvent(new Event('change')); // main.js: examples, then translate
  } catch (err) {
    if (ticket !== latest) return;
    showStatus(before);
    root.dataset.open = 'failed';
    const kept = app.translator ? ' The model before is still loaded.' : '';
    showMessage(`Could not open ${names}: ${why(err)}.${kept}`);
  } finally {
    if (ticket === latest) progress.done();
  }
}

/** Lists local entries in the model select, in a group of their own. */
function addOptions(entries) {
  const select = page().modelSelect;
  let group = select.querySelector('optgroup.local');
  if (!group) {
    group = el('optgroup.local', { label: 'Opened from this device' });
    select.append(group);
  }
  group.append(...entries.map((e) => el('option', { value: e.id, text: e.name })));
}

/**
 * Files dropped on `zone` (highlighted while they are dragged over it) are opened; dropped
 * elsewhere on the page, they are not opened by the browser as a page of their own.
 */
function wireDrop(zone, open) {
  let depth = 0;
  const files = (ev) => [...(ev.dataTransfer?.types ?? [])].includes('Files');
  const leave = () => {
    depth = 0;
    zone.classList.remove('dropping');
  };
  zone.addEventListener('dragenter', (ev) => {
    if (!files(ev)) return;
    ev.preventDefault();
    depth++;
    zone.classList.add('dropping');
  });
  zone.addEventListener('dragover', (ev) => {
    if (!files(ev)) return;
    ev.preventDefault();
    ev.dataTransfer.dropEffect = 'copy';
  });
  zone.addEventListener('dragleave', (ev) => {
    if (files(ev) && --depth <= 0) leave();
  });
  zone.addEventListener('drop', (ev) => {
    if (!files(ev)) return;
    ev.preventDefault();
    ev.stopPropagation();
    leave();
    open([...ev.dataTransfer.files]);
  });
  // why: a file dropped beside the panel would replace the page with the file
  window.addEventListener('dragover', (ev) => files(ev) && ev.preventDefault());
  window.addEventListener('drop', (ev) => {
    if (!files(ev)) return;
    ev.preventDefault();
    leave();
    showMessage('Drop the model’s files on the translate panel to open them.', 'info');
  });
}

/** Wires the "Open a model…" button, its file input and the translate panel as a drop zone. */
export function wireOpenModel(app) {
  const p = page();
  const open = (files) =>
    openFiles(app, files).catch((err) => showMessage(`Could not open the model: ${why(err)}`));
  p.openModelButton.addEventListener('click', () => p.openModelInput.click());
  p.openModelInput.addEventListener('change', () => {
    const files = [...p.openModelInput.files];
    p.openModelInput.value = ''; // why: choosing the same files again fires change again
    open(files);
  });
  wireDrop(p.source.closest('.panel'), open);
}
