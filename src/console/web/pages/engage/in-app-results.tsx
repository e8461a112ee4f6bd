import { useEffect, useState } from 'preact/hooks';
import { useCall } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { Field } from '../../ui/forms';
import { INTERACTION_TYPES, rate, type InteractionType, type MessageResults } from './in-app-model';
import { BarChart } from './overview';

const RESULTS = 'GET /engage/admin/environments/{environmentId}/in-app-messages/{messageKey}/results';
const TYPE_WORDS: Record<InteractionType, string> = { IMPRESSION: 'Impressions', CLICK: 'Clicks', DISMISS: 'Dismissals', CONVERSION: 'Conversions' };
const DAYS = [7, 30, 90, 366];
const variantName = (v: { variantId: string | null }) => (v.variantId === null ? 'No variant' : `Variant ${v.variantId}`);

/**
 * A message's results (issue 27 "console pages"): the INTERACTION_TRACKED counts of the last N
 * days per variant, drawn as a bar chart per variant (each bar's count as text beside it, what a
 * screen reader reads) with the click-through rate, then the same numbers as a table and the
 * days with interactions.
 */
export function MessageResultsView(props: { environmentId: string; messageKey: string; tick: number }) {
  const [days, setDays] = useState(30);
  const loaded = useCall<MessageResults, typeof RESULTS>(RESULTS, { params: { environmentId: props.environmentId, messageKey: props.messageKey }, query: { days } });
  useEffect(() => {
    if (props.tick > 0) loaded.reload();
  }, [props.tick]);
  const r = loaded.data;
  const counted = r?.variants.some((v) => INTERACTION_TYPES.some((t) => v.totals[t] > 0));
  return (
    <section aria-labelledby="results-h">
      <h2 id="results-h">Results</h2>
      {loaded.error && <ErrorBox error={loaded.error} />}
      <div class="msg-filters">
        <Field label="Period">
          {(a) => (
            <select {...a} value={days} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
              {DAYS.map((n) => (
                <option key={n} value={n}>
                  Last {n} days
                </option>
              ))}
            </select>
          )}
        </Field>
        <div class="actions">
          <button type="button" onClick={loaded.reload}>
            Refresh results
          </button>
        </div>
      </div>
      {r && (
        <p class="muted">
          Interactions the devices reported (INTERACTION_TRACKED with this message's id <code>{r.id}</code>) since {r.fromDay} (UTC days).
        </p>
      )}
      {r && !counted && <p class="empty">No interaction counted in this period.</p>}
      {r && counted && (
        <>
          <div class="charts">
            {r.variants.map((v) => (
              <BarChart
                key={v.variantId ?? ''}
                title={variantName(v)}
                bars={INTERACTION_TYPES.map((t) => ({ label: TYPE_WORDS[t], value: v.totals[t], text: String(v.totals[t]) }))}
                summary={`Click-through rate ${rate(v.totals.CLICK, v.totals.IMPRESSION)}, conversion rate ${rate(v.totals.CONVERSION, v.totals.IMPRESSION)} of ${v.totals.IMPRESSION} impressions.`}
              />
            ))}
          </div>
          <div class="table-scroll">
            <table>
              <caption>Results per variant</caption>
              <thead>
                <tr>
                  <th scope="col">Variant</th>
                  {INTERACTION_TYPES.map((t) => (
                    <th scope="col" key={t}>
                      {TYPE_WORDS[t]}
                    </th>
                  ))}
                  <th scope="col">Click-through rate</th>
                </tr>
              </thead>
              <tbody>
                {r.variants.map((v) => (
                  <tr key={v.variantId ?? ''}>
                    <th scope="row">{v.variantId ?? '(none)'}</th>
                    {INTERACTION_TYPES.map((t) => (
                      <td key={t}>{v.totals[t]}</td>
                    ))}
                    <td>{rate(v.totals.CLICK, v.totals.IMPRESSION)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <details class="minute-table">
            <summary>The days with interactions</summary>
            <div class="table-scroll">
              <table>
                <caption class="visually-hidden">Interactions per day and variant</caption>
                <thead>
                  <tr>
                    <th scope="col">Day (UTC)</th>
                    <th scope="col">Variant</th>
                    {INTERACTION_TYPES.map((t) => (
                      <th scope="col" key={t}>
                        {TYPE_WORDS[t]}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {r.variants
                    .flatMap((v) => v.daily.map((d) => ({ v, d })))
                    .sort((a, b) => (a.d.day === b.d.day ? 0 : a.d.day < b.d.day ? 1 : -1))
                    .map(({ v, d }) => (
                      <tr key={`${d.day}-${v.variantId ?? ''}`}>
                        <th scope="row">{d.day}</th>
                        <td>{v.variantId ?? '(none)'}</td>
                        {INTERACTION_TYPES.map((t) => (
                          <td key={t}>{d.counts[t]}</td>
                        ))}
                      </tr>
                    ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  );
}
