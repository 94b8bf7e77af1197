/** What every chart of the report shares, so bench and load charts look like one report. */
import { FONT_FAMILY } from '../font';

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** A fresh object per chart: a spec is handed to Vega-Lite's compiler, which must not share state between charts. */
export const chartConfig = () => ({ font: FONT_FAMILY, view: { stroke: '#ddd' }, legend: { symbolType: 'circle' }, axis: { labelFontSize: 11, titleFontSize: 12 } });
