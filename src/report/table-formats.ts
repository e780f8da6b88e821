import { stringify } from 'csv-stringify/sync';
import { formatCells, formatValue, type PaperTable, type TableRow } from './paper-table.ts';

/** Says how an Optimal row reads, under any table that has one. */
function optimalNote(table: PaperTable): string | undefined {
  const row = table.rows.find((r) => r.kind === 'optimal');
  if (row === undefined) return undefined;
  const open = row.proven?.some((p) => p === false);
  return `Optimal: proven optimal (the plan meets a proven lower bound, or the search ruled out every smaller footprint)${open ? '; "<= x" marks the best plan found within the time limit, not proven' : ' in every column'}.`;
}

/** Markdown: the best strategy of each column in bold; the bound and naive rows after a gap. */
export function tableToMarkdown(table: PaperTable): string {
  const header = `| Strategy (${table.unit}) | ${table.columns.join(' | ')} |`;
  const rule = `|---|${table.columns.map(() => '---:').join('|')}|`;
  const lines = table.rows.map((row) => {
    const cells = formatCells(row, table.unit).map((text, c) => (row.best[c] ? `**${text}**` : text));
    const label = row.kind === 'strategy' ? row.label : `*${row.label}*`;
    return `| ${label} | ${cells.join(' | ')} |`;
  });
  const note = optimalNote(table);
  return `${[`**${table.title}** (footprint in ${table.unit}; best per network in bold)`, '', header, rule, ...lines, ...(note ? ['', note] : [])].join('\n')}\n`;
}

/** CSV: numbers only, in the table's unit; a last row names the best strategy per network. */
export function tableToCsv(table: PaperTable): string {
  const strategies = table.rows.filter((r) => r.kind === 'strategy');
  const best = table.columns.map((_, c) =>
    strategies
      .filter((r) => r.best[c])
      .map((r) => r.label)
      .join('; '),
  );
  return stringify([
    [`strategy (${table.unit})`, ...table.columns],
    ...table.rows.map((row) => [row.label, ...row.values.map((v) => formatValue(v, table.unit).replace('—', ''))]),
    ...table.rows.filter((row) => row.kind === 'optimal').map((row) => [`${row.label} proven`, ...(row.proven ?? []).map((p) => (p === undefined ? '' : p ? 'yes' : 'no'))]),
    ['best', ...best],
  ]);
}

const LATEX_SPECIAL: Record<string, string> = {
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '\\': '\\textbackslash{}',
};

function latex(text: string): string {
  return text.replace(/[&%$#_{}~^\\]/g, (c) => LATEX_SPECIAL[c]);
}

/** LaTeX with booktabs: best per column in bold, the bound and naive under a mid rule. */
export function tableToLatex(table: PaperTable): string {
  const line = (label: string, cells: readonly string[]): string => `${[latex(label), ...cells].join(' & ')} \\\\`;
  const body = (kinds: readonly string[]): string[] =>
    table.rows
      .filter((r) => kinds.includes(r.kind))
      .map((row: TableRow) =>
        line(
          row.label,
          formatCells(row, table.unit).map((text, c) => (row.best[c] ? `\\textbf{${text}}` : text.replace('<= ', '$\\leq$ ').replace('—', '--'))),
        ),
      );
  return `${[
    '% Requires \\usepackage{booktabs}.',
    '\\begin{table}[t]',
    '\\centering',
    `\\caption{${latex(table.title)} (footprint in ${table.unit}; best per network in bold)${optimalNote(table) ? ` ${latex(optimalNote(table)!)}` : ''}}`,
    `\\begin{tabular}{l${'r'.repeat(table.columns.length)}}`,
    '\\toprule',
    line('Strategy', table.columns.map(latex)),
    '\\midrule',
    ...body(['strategy', 'published']),
    '\\midrule',
    ...body(['optimal', 'lower-bound', 'naive']),
    '\\bottomrule',
    '\\end{tabular}',
    '\\end{table}',
  ].join('\n')}\n`;
}
