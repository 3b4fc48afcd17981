/* SPDX-License-Identifier: MIT */
/* results_html_chart.c: owns the dashboard's charts and the page's look: one section per charted
 * row (its history over the dates of its runs, each change point marked with its run, commit and
 * size, and listed under the chart; the latest run's distribution from 10 samples, its values
 * listed below that), the data the page's script reads, the style and the script. It computes
 * nothing: every number comes from the report document. */
#include <math.h>
#include <string.h>

#include "results_html.h"
#include "results_html_int.h"

const char html_style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em;color:#1b1b1b;background:#fff}\n"
    "h1{font-size:1.4em;margin:0 0 .4em}h2{font-size:1.1em;margin:1.2em 0 .3em}\n"
    "code{font-size:.95em}\n"
    "dl.meta{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:0 0 1em}\n"
    "dl.meta dt{font-weight:600}dl.meta dd{margin:0}\n"
    ".summary span{margin-right:1em}\n"
    "section.top{margin:.6em 0;padding:.2em .8em;border-left:6px solid #ff7f0e;"
    "background:#fff8f0}\n"
    "section#watch{border-left-color:#e0c020;background:#fffdf0}\n"
    "section.top h2{margin:.3em 0}section.top ul{margin:.2em 0;padding-left:1.2em}\n"
    "section.top p.none{margin:.2em 0;color:#555}\n"
    ".table-wrap{max-width:100%}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:12px;"
    "table-layout:fixed;width:100%}\n"
    "th,td{border:1px solid #c8c8c8;padding:.2em .3em;vertical-align:top;overflow-wrap:anywhere}\n"
    "th{background:#f0f0f0;text-align:left}td.num{text-align:right}\n"
    "td.null{color:#777;text-align:center}span.null{color:#777}\n"
    "col.c-state{width:8em}col.c-bench{width:22%}col.c-n{width:3em}col.c-pct{width:10.5em}\n"
    "col.c-fail{width:5.5em}col.c-since{width:7.5em}col.c-why{width:auto}\n"
    "span.slower{color:#a40000}span.faster{color:#006b1f}span.est{font-style:italic}\n"
    "td.failing{color:#a40000;font-weight:600}\n"
    "td.state{font-weight:700;text-transform:uppercase;font-size:.85em;overflow-wrap:normal}\n"
    "tr.state-fail td.state{background:#d62728;color:#fff}\n"
    "tr.state-regression td.state{background:#ff7f0e;color:#000}\n"
    "tr.state-guardrail td.state{background:#ffd23f;color:#000}\n"
    "tr.state-watch td.state{background:#fff2b3;color:#000}\n"
    "tr.state-unmeasured td.state{background:repeating-linear-gradient(45deg,#ddd 0 6px,#f4f4f4 "
    "6px 12px);color:#333}\n"
    "tr.state-ok td.state{background:#e3f4e1;color:#14532d}\n"
    "td.why details{margin-top:.2em}td.why summary{cursor:pointer;color:#555}\n"
    "ul.more{margin:.2em 0;padding-left:1.1em}\n"
    ".bench{border-top:1px solid #ddd;margin-top:1em}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:1em}\n"
    ".chart{position:relative;width:640px;max-width:100%;height:260px}\n"
    ".nodata{color:#555;font-style:italic;width:560px;max-width:100%}\n"
    "ul.changes{margin:.3em 0;padding-left:1.2em}li.cp.open{color:#a40000}\n"
    "p.capped{color:#555;font-style:italic}\n";

/* The page's script: per charted row a history chart (dates on the x-axis, each change point a
 * dashed line labelled with its size and commit, and the run a regression or watch holds since
 * when no change point opened it yet, dotted) and, from 10 samples, a distribution chart.
 * Every canvas is marked data-drawn="1" once Chart.js has drawn it, and a history canvas
 * data-markers="N" with the lines it marked. */
const char *const html_script[] = {
    "(function(){\n"
    "'use strict';\n"
    "var data=JSON.parse(document.getElementById('report-data').textContent);\n"
    "var DAY=86400000,marks={};\n"
    "function fmtNs(v){if(v===null||!isFinite(v))return '\\u2014';var a=Math.abs(v);\n"
    " var u=[[1e3,1,'ns'],[1e6,1e3,'\\u00b5s'],[1e9,1e6,'ms'],[Infinity,1e9,'s']];\n"
    " for(var i=0;i<u.length;i++)if(a<u[i][0])return Number((v/u[i][1]).toPrecision(3))+u[i][2];}\n"
    "function iso(ms){return new Date(ms).toISOString();}\n"
    "function day(ms){return iso(ms).slice(0,10);}\n"
    "function when(ms){var s=iso(ms);return s.slice(0,10)+' '+s.slice(11,16);}\n"
    "function pct(r){return r===null||!isFinite(r)?'\\u2014':(r>0?'+':r<0?'\\u2212':'')+\n"
    " Math.abs(r*100).toFixed(1)+'%';}\n"
    "Chart.register({id:'libbenchDrawn',afterRender:function(c){\n"
    " c.canvas.setAttribute('data-drawn','1');}});\n"
    "Chart.register({id:'libbenchChanges',afterDatasetsDraw:function(c){\n"
    " var list=marks[c.canvas.id];if(!list)return;var x=c.scales.x,a=c.chartArea,g=c.ctx,n=0;\n"
    " list.forEach(function(cp){var px=x.getPixelForValue(cp.t);\n"
    "  if(!isFinite(px)||px<a.left-1||px>a.right+1)return;\n"
    "  g.save();g.strokeStyle=cp.since?'#e06000':cp.open?'#d62728':'#444';\n"
    "  g.fillStyle=g.strokeStyle;g.lineWidth=cp.open||cp.since?2:1;\n"
    "  g.setLineDash(cp.since?[2,2]:[6,3]);g.beginPath();g.moveTo(px,a.top);\n"
    "  g.lineTo(px,a.bottom);g.stroke();g.setLineDash([]);g.font='11px sans-serif';\n"
    "  var right=px>a.right-140;g.textAlign=right?'right':'left';\n"
    "  g.fillText(cp.label,px+(right?-4:4),a.top+12+13*(n%3));g.restore();n++;});\n"
    " c.canvas.setAttribute('data-markers',String(n));}});\n",
    "Chart.defaults.animation=false;Chart.defaults.responsive=true;\n"
    "Chart.defaults.maintainAspectRatio=false;\n"
    "function history(b){\n"
    " var p=b.points.map(function(x){return {t:Date.parse(x.timestamp_utc),p50:x.p50_ns,\n"
    "  p90:x.p90_ns,f:x.failure_count,id:x.bench_id,rev:x.source_revision};});\n"
    " var id='history-'+b.index;\n"
    " marks[id]=b.changes.map(function(c){var t=Date.parse(c.timestamp_utc);\n"
    "  return {t:t,open:c.open,label:pct(c.size_rel)+' '+day(t)+(c.source_revision?\n"
    "  ' '+c.source_revision.slice(0,8):'')};});\n"
    " if(b.since&&!b.changes.some(function(c){return c.open;}))marks[id].push({since:true,\n"
    "  t:Date.parse(b.since.timestamp_utc),label:b.since.state+' since '+\n"
    "  day(Date.parse(b.since.timestamp_utc))+' '+pct(b.since.size_rel)});\n"
    " function line(k,label,color){return {label:label,yAxisID:'y',borderColor:color,\n"
    "  backgroundColor:color,spanGaps:false,pointRadius:3,data:p.map(function(x){\n"
    "  return {x:x.t,y:x[k]===undefined?null:x[k]};})};}\n"
    " var fails={label:'runs with failures',yAxisID:'y1',showLine:false,pointStyle:'crossRot',\n"
    "  pointRadius:7,borderColor:'#d62728',backgroundColor:'#d62728',\n"
    "  data:p.filter(function(x){return x.f>0;}).map(function(x){return {x:x.t,y:x.f};})};\n"
    " var lo=p.length?p[0].t:0,hi=p.length?p[p.length-1].t:0,span=hi-lo,step;\n"
    " if(span>=2*DAY)step=Math.max(1,Math.ceil(span/DAY/8))*DAY;\n"
    " new Chart(document.getElementById(id),{type:'line',data:{datasets:[line('p50','p50',\n"
    "  '#1f77b4'),line('p90','p90','#9467bd'),fails]},options:{\n"
    "  plugins:{title:{display:true,text:'History: p50 and p90 per recorded run'},\n"
    "  tooltip:{callbacks:{title:function(it){var x=p[it[0].dataIndex]||{};\n"
    "   return it.length?when(it[0].parsed.x)+(x.id?' run '+x.id:'')+(x.rev?' commit '+\n"
    "   x.rev.slice(0,12):''):'';},label:function(c){return c.dataset.label+': '+\n"
    "   (c.dataset.yAxisID==='y'?fmtNs(c.parsed.y):c.parsed.y);}}}},\n"
    "  scales:{x:{type:'linear',min:step?Math.floor(lo/DAY)*DAY:undefined,\n"
    "   ticks:{stepSize:step,maxRotation:0,callback:function(v){return step?day(v):when(v);}},\n"
    "   title:{display:true,text:'record time (UTC)'}},\n"
    "   y:{position:'left',ticks:{callback:fmtNs},title:{display:true,text:'time'}},\n"
    "   y1:{position:'right',beginAtZero:true,ticks:{precision:0},grid:{drawOnChartArea:false},\n"
    "   title:{display:true,text:'failures'}}}}});}\n",
    "function distribution(b){\n"
    " var v=b.values_ns,lo=v[0],hi=v[v.length-1],n=Math.max(1,Math.min(30,\n"
    "  Math.ceil(Math.sqrt(v.length))));\n"
    " if(hi===lo)n=1;var w=(hi-lo)/n,counts=[],labels=[];\n"
    " for(var i=0;i<n;i++){counts.push(0);\n"
    "  labels.push(fmtNs(lo+w*i)+'\\u2013'+fmtNs(i===n-1?hi:lo+w*(i+1)));}\n"
    " v.forEach(function(x){var i=w>0?Math.min(n-1,Math.floor((x-lo)/w)):0;counts[i]++;});\n"
    " new Chart(document.getElementById('dist-'+b.index),{type:'bar',data:{labels:labels,\n"
    "  datasets:[{label:'samples of run '+b.bench_id,data:counts,backgroundColor:'#1f77b4',\n"
    "  barPercentage:1,categoryPercentage:1}]},options:{plugins:{title:{display:true,\n"
    "  text:'Latest run: distribution of '+v.length+' successful samples'}},\n"
    "  scales:{y:{beginAtZero:true,ticks:{precision:0},title:{display:true,text:'samples'}}}}});}\n"
    "data.forEach(function(b){if(b.points)history(b);if(b.values_ns)distribution(b);});\n"
    "})();\n",
    NULL,
};

/* One change point under the chart: its run, commit and sources, the medians around it, its
 * size with the interval, and its p. */
static void put_change(struct bench__text *t, const json_t *cp)
{
    bool open = json_is_true(json_object_get(cp, "open"));
    html_put(t,
             open ? "<li class=\"cp open\" data-bench-id=\"" : "<li class=\"cp\" data-bench-id=\"");
    html_put_esc(t, html_str(cp, "bench_id"));
    html_put(t, "\">");
    html_put_when(t, html_str(cp, "timestamp_utc"));
    html_put(t, ", run <code>");
    html_put_esc(t, html_str(cp, "bench_id"));
    html_put(t, "</code>");
    const char *commit = html_str(cp, "source_revision");
    if (commit[0]) {
        html_put(t, ", commit <code>");
        html_put_esc(t, commit);
        html_put(t, "</code>");
    }
    const json_t *sources = json_object_get(cp, "sources");
    const char *name;
    json_t *hash;
    json_object_foreach((json_t *)sources, name, hash)
    {
        html_put(t, ", ");
        html_put_esc(t, name);
        html_put(t, " <code>");
        html_put_esc(t, json_string_value(hash) ? json_string_value(hash) : "?");
        html_put(t, "</code>");
    }
    html_put(t, ": p50 ");
    html_put_ns(t, html_num(cp, "median_before_ns"));
    html_put(t, " &#8594; ");
    html_put_ns(t, html_num(cp, "median_after_ns"));
    html_put(t, ", ");
    html_put_rel(t, html_num(cp, "size_rel"));
    html_put(t, " [");
    html_put_rel(t, html_num(cp, "ci_low_rel"));
    html_put(t, ", ");
    html_put_rel(t, html_num(cp, "ci_high_rel"));
    html_putf(t, "] at %.0f%%, p = %.2g", html_num(cp, "ci_level") * 100, html_num(cp, "p"));
    if (open)
        html_put(t, " <strong>(the open regression)</strong>");
    html_put(t, "</li>\n");
}

/* Fewer samples than a histogram needs: the values themselves. */
static void put_values(struct bench__text *t, const json_t *values)
{
    size_t n = json_array_size(values);
    html_putf(t, "<p class=\"nodata few\">%zu successful sample%s in the latest run:", n,
              n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        html_put(t, i ? ", " : " ");
        html_put_ns(t, json_number_value(json_array_get(values, i)));
    }
    html_putf(t, " (no histogram under %d)</p>", RESULTS_HTML_HISTOGRAM_MIN);
}

void html_chart_section(struct bench__text *t, json_t *data, const json_t *row, size_t i)
{
    const json_t *hist = json_object_get(row, "history");
    json_t *points = json_object_get(hist, "points"), *changes = json_object_get(hist, "changes");
    json_t *values = json_object_get(row, "values_ns");
    bool has_points = json_array_size(points) > 0;
    size_t nv = json_array_size(values);
    html_putf(t, "<section class=\"bench\" id=\"bench-%zu\"><h2>", i);
    html_put_identity(t, row);
    html_put(t, " <small>(");
    html_put_esc(t, html_str(row, "subject"));
    html_put(t, "), ");
    html_put_esc(t, html_str(row, "state"));
    html_put(t, "</small></h2>\n<div class=\"charts\">");
    if (has_points)
        html_putf(t,
                  "<div class=\"chart\"><canvas id=\"history-%zu\" role=\"img\" "
                  "aria-label=\"history\" data-changes=\"%zu\"></canvas></div>",
                  i, json_array_size(changes));
    else
        html_put(t, "<p class=\"nodata\">No recorded run.</p>");
    if (nv >= RESULTS_HTML_HISTOGRAM_MIN)
        html_putf(t,
                  "<div class=\"chart\"><canvas id=\"dist-%zu\" role=\"img\" "
                  "aria-label=\"distribution\"></canvas></div>",
                  i);
    else if (nv > 0)
        put_values(t, values);
    else
        html_put(t, "<p class=\"nodata\">No successful measurement in the latest run: no "
                    "distribution to draw.</p>");
    html_put(t, "</div>\n");
    if (json_array_size(changes)) {
        html_put(t, "<ul class=\"changes\">\n");
        for (size_t k = 0; k < json_array_size(changes); k++)
            put_change(t, json_array_get(changes, k));
        html_put(t, "</ul>");
    } else if (has_points && json_is_object(json_object_get(row, "since"))) {
        html_put(t, "<p class=\"nodata nocp\">No change point confirmed in its history yet: the "
                    "dotted line is the run its state holds since.</p>");
    } else if (has_points) {
        html_put(t, "<p class=\"nodata nocp\">No change point in its history.</p>");
    }
    html_put(t, "</section>\n");
    json_t *entry = json_object();
    json_object_set_new(entry, "index", json_integer((json_int_t)i));
    if (has_points) {
        json_object_set(entry, "points", points);
        json_object_set_new(entry, "changes",
                            json_is_array(changes) ? json_incref(changes) : json_array());
        const json_t *since = json_object_get(row, "since");
        if (json_is_object(since)) { /* the run a regression or watch holds since */
            json_t *m = json_object();
            json_object_set_new(m, "timestamp_utc", json_string(html_str(since, "timestamp_utc")));
            json_object_set_new(m, "state", json_string(html_str(row, "state")));
            double rel = html_num(json_object_get(row, "slower_pct"), "p50") / 100;
            json_object_set_new(m, "size_rel", isfinite(rel) ? json_real(rel) : json_null());
            json_object_set_new(entry, "since", m);
        }
    }
    if (nv >= RESULTS_HTML_HISTOGRAM_MIN) {
        json_object_set(entry, "values_ns", values);
        json_object_set_new(entry, "bench_id",
                            json_string(html_str(json_object_get(row, "target"), "bench_id")));
    }
    json_array_append_new(data, entry);
}
