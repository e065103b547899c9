import { prng, seedOf } from './random';

export interface TextParams {
  readonly prompt: string;
  readonly max_tokens?: number;
  readonly temperature?: number;
  readonly tone?: string;
}

const OPENINGS: Record<string, string> = {
  neutral: 'Here is a short piece on',
  formal: 'The following text addresses the subject of',
  casual: "Alright, let's talk about",
};

const TEMPLATES = [
  '{A} matters more than it first appears.',
  'When {A} meets {B}, the details decide the result.',
  'A careful look at {A} shows how it connects to {B}.',
  'Most discussions of {A} skip over {B}, which is a mistake.',
  'Think of {A} as the frame and {B} as what fills it.',
  'The simplest way to approach {A} is to start small.',
  'Every part of {A} can be tested against {B}.',
  'In practice, {A} rewards patience and clear goals.',
  'What {A} needs most is a plain description of {B}.',
  'Taken together, {A} and {B} make the picture complete.',
];

/** Words of the prompt worth repeating (any script), in order of appearance. */
export function keywordsOf(prompt: string): string[] {
  const words = prompt.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of words) {
    const key = w.toLowerCase();
    if ([...w].length < 3 || seen.has(key)) continue;
    seen.add(key);
    out.push(w);
    if (out.length === 12) break;
  }
  return out.length ? out : [[...prompt.trim()].slice(0, 40).join('') || 'the topic'];
}

/**
 * The built-in text model: deterministic UTF-8 prose built from the prompt's own words.
 * Length follows max_tokens (about 0.75 words a token, at most 600 words); tone changes
 * the opening, temperature how freely sentence shapes vary.
 */
export function generateText(params: TextParams): string {
  const prompt = params.prompt;
  const tone = params.tone && OPENINGS[params.tone] ? params.tone : 'neutral';
  const temperature = typeof params.temperature === 'number' ? params.temperature : 0.7;
  const budget = Math.max(12, Math.min(600, Math.round((params.max_tokens ?? 512) * 0.75)));
  const rand = prng(seedOf('text', prompt, tone, temperature, budget));
  const keys = keywordsOf(prompt);
  const excerpt = [...prompt.trim().replace(/\s+/g, ' ')].slice(0, 80).join('');
  const lines: string[] = [`${OPENINGS[tone]} “${excerpt}”.`];
  let words = lines[0].split(/\s+/).length;
  let paragraph: string[] = [];
  let sentences = 0;
  while (words < budget) {
    const spread = Math.max(1, Math.round(TEMPLATES.length * Math.min(1, 0.3 + temperature / 2)));
    const template = TEMPLATES[(sentences + Math.floor(rand() * spread)) % TEMPLATES.length];
    const a = keys[Math.floor(rand() * keys.length)];
    const b = keys[Math.floor(rand() * keys.length)];
    let sentence = template.replace('{A}', a).replace('{B}', b === a && keys.length > 1 ? keys[(keys.indexOf(a) + 1) % keys.length] : b);
    sentence = sentence[0].toUpperCase() + sentence.slice(1);
    const n = sentence.split(/\s+/).length;
    if (words + n > budget && sentences > 0) break;
    paragraph.push(sentence);
    words += n;
    sentences++;
    if (paragraph.length === 4) {
      lines.push(paragraph.join(' '));
      paragraph = [];
    }
  }
  if (paragraph.length) lines.push(paragraph.join(' '));
  return lines.join('\n\n') + '\n';
}
