import { stringify } from 'csv-stringify/sync';
import { formatValue, type PaperTable } from './paper-table.ts';

/** Markdown: the best strategy of each column in bold; the bound and naive rows after a gap. */
export function tableToMarkdown(table: PaperTable): string {
  const header = `| Strategy (${table.unit}) | ${table.columns.join(' | ')} |`;
  const rule = `|---|${table.columns.map(() => '---:').join('|')}|`;
  const lines = table.rows.map((row) => {
    const cells = row.values.map((v, c) => (row.best[c] ? `**${formatValue(v, table.unit)}**` : formatValue(v, table.unit)));
    const label = row.kind === 'strategy' ? row.label : `*${row.label}*`;
    return `| ${label} | ${cells.join(' | ')} |`;
  });
  return `${[`**${table.title}** (footprint in ${table.unit}; best per network in bold)`, '', header, rule, ...lines].join('\n')}\n`;
}

/** CSV: numbers only, in the table's unit; a last row names the best strategy per network. */
export function tableToCsv(table: PaperTable): string {
  const strategies = table.rows.filter((r) => r.kind === 'strategy');
  const best = table.columns.map((_, c) => strategies.filter((r) => r.best[c]).map((r) => r.label).join('; '));
  return stringify([
    [`strategy (${table.unit})`, ...table.columns],
    ...table.rows.map((row) => [row.label, ...row.values.map((v) => formatValue(v, table.unit).replace('—', ''))]),
    ['best', ...best],
  ]);
}

const LATEX_SPECIAL: Record<string, string> = { '&': '\\&', '%': '\\%', $: '\\$', '#': '\\#', _: '\\_', '{': '\\{', '}': '\\}', '~': '\\textasciitilde{}', '^': '\\textasciicircum{}', '\\': '\\textbackslash{}' };

function latex(text: string): string {
  return text.replace(/[&%$#_{}~^\\]/g, (c) => LATEX_SPECIAL[c]);
}

/** LaTeX with booktabs: best per column in bold, the bound and naive under a mid rule. */
export function tableToLatex(table: PaperTable): string {
  const line = (label: string, cells: readonly string[]): string => `${[latex(label), ...cells].join(' & ')} \\\\`;
  const body = (kinds: readonly string[]): string[] =>
    table.rows
      .filter((r) => kinds.includes(r.kind))
      .map((row) => line(row.label, row.values.map((v, c) => (row.best[c] ? `\\textbf{${formatValue(v, table.unit)}}` : formatValue(v, table.unit).replace('—', '--')))));
  return `${[
    '% Requires \\usepackage{booktabs}.',
    '\\begin{table}[t]',
    '\\centering',
    `\\caption{${latex(table.title)} (footprint in ${table.unit}; best per network in bold)}`,
    `\\begin{tabular}{l${'r'.repeat(table.columns.length)}}`,
    '\\toprule',
    line('Strategy', table.columns.map(latex)),
    '\\midrule',
    ...body(['strategy', 'published']),
    '\\midrule',
    ...body(['lower-bound', 'naive']),
    '\\bottomrule',
    '\\end{tabular}',
    '\\end{table}',
  ].join('\n')}\n`;
}
