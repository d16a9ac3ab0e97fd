/**
 * The widget's CSS, inside its shadow root. `:host { all: initial !important }` wins over any
 * `!important` rule of the host page (inside a shadow tree, important declarations of the inner
 * context beat the outer one), and every length is in px so the page's root font size cannot
 * scale the widget.
 */
export const css = `
:host{all:initial !important;display:block !important;position:static !important}
.root{all:initial;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","PingFang SC","Microsoft YaHei",sans-serif;color:var(--text);-webkit-font-smoothing:antialiased}
.root *,.root *::before,.root *::after{box-sizing:border-box}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
button{font:inherit;color:inherit;cursor:pointer}
button:disabled{cursor:default;opacity:.55}
:focus-visible{outline:2px solid var(--primary);outline-offset:2px}
.launcher{position:fixed;bottom:20px;right:20px;z-index:2147483000;width:56px;height:56px;border:0;border-radius:50%;background:var(--primary);color:var(--on-primary);box-shadow:0 4px 14px rgba(0,0,0,.25);display:flex;align-items:center;justify-content:center;padding:0}
.left .launcher{right:auto;left:20px}
.launcher svg{width:26px;height:26px;fill:currentColor}
.panel{position:fixed;bottom:88px;right:20px;z-index:2147483001;width:380px;height:600px;max-height:calc(100vh - 108px);background:var(--bg);color:var(--text);border-radius:14px;box-shadow:0 10px 40px rgba(0,0,0,.28);display:flex;flex-direction:column;overflow:hidden}
.left .panel{right:auto;left:20px}
.panel[hidden]{display:none}
header{display:flex;align-items:center;gap:6px;padding:12px 12px 12px 16px;background:var(--primary);color:var(--on-primary)}
header h2{flex:1;margin:0;font-size:16px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.icon{border:0;background:transparent;color:inherit;width:32px;height:32px;border-radius:8px;display:flex;align-items:center;justify-content:center;padding:0;font-size:18px;line-height:1}
.icon:hover{background:rgba(127,127,127,.2)}
.icon svg{width:18px;height:18px;fill:currentColor}
.notice{margin:10px 12px 0;padding:10px 12px;border-radius:10px;background:#fdecea;color:#611a15;font-size:13px}
.notice[hidden]{display:none}
.notice p{margin:0}
.notice p+p{margin-top:4px;opacity:.85}
.status{padding:4px 16px;font-size:12px;opacity:.75}
.status:empty{display:none}
.log{flex:1;overflow-y:auto;padding:14px 12px;display:flex;flex-direction:column;gap:10px}
.msg{max-width:85%;padding:9px 12px;border-radius:14px;overflow-wrap:anywhere;white-space:normal}
.user{align-self:flex-end;background:var(--primary);color:var(--on-primary);border-bottom-right-radius:4px;white-space:pre-wrap}
.assistant{align-self:flex-start;background:var(--bubble);border-bottom-left-radius:4px}
.assistant.streaming::after{content:"▍";opacity:.6}
.msg p{margin:0}
.msg p+p,.msg ul,.msg ol,.msg pre,.msg blockquote,.msg table{margin:6px 0 0}
.msg ul,.msg ol{padding-left:20px}
.msg a{color:var(--link);text-decoration:underline}
.msg code{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:rgba(127,127,127,.16);padding:1px 4px;border-radius:4px}
.msg pre{background:rgba(127,127,127,.14);padding:8px;border-radius:8px;overflow-x:auto}
.msg pre code{background:none;padding:0}
.msg blockquote{border-left:3px solid rgba(127,127,127,.5);margin-left:0;padding-left:8px}
.msg table{border-collapse:collapse}.msg td,.msg th{border:1px solid rgba(127,127,127,.4);padding:2px 6px}
.msg h1,.msg h2,.msg h3,.msg h4,.msg h5,.msg h6{font-size:15px;margin:8px 0 4px}
.img-btn{border:1px dashed rgba(127,127,127,.7);background:transparent;border-radius:8px;padding:6px 10px;font-size:12.5px;margin:4px 0}
.msg img{max-width:100%;border-radius:6px}
.sources{align-self:flex-start;max-width:85%;font-size:12px;opacity:.85;margin-top:-4px}.sources-title{font-weight:600;margin-bottom:2px}.sources ol{margin:0;padding:0;list-style:none}.sources li{overflow-wrap:anywhere}.sources a{color:var(--link);text-decoration:underline}.source-detail{opacity:.75}
.chip{align-self:flex-start;font-size:12px;opacity:.75;padding:2px 8px;border-radius:10px;background:rgba(127,127,127,.14)}
.error{align-self:stretch;font-size:13px;color:#b3261e;padding:2px 4px}
.card{align-self:stretch;border:1px solid rgba(127,127,127,.35);border-radius:12px;padding:10px 12px;background:var(--bg)}
.card h3{margin:0 0 6px;font-size:13.5px;font-weight:600}
.card pre{margin:0 0 8px;max-height:220px;overflow:auto;background:#1e1e2e;color:#e4e4ef;padding:8px 10px;border-radius:8px;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
.k{color:#c792ea}.s{color:#c3e88d}.n{color:#f78c6c}.c{color:#7f848e;font-style:italic}
.actions{display:flex;gap:8px}
.btn{border:1px solid var(--primary);border-radius:8px;padding:6px 14px;background:transparent;color:var(--text)}
.btn.primary{background:var(--primary);color:var(--on-primary)}
.outcome{font-size:12.5px;margin-top:6px;opacity:.85;overflow-wrap:anywhere}
.outcome:empty{display:none}
.quick-replies{align-self:flex-start;display:flex;flex-wrap:wrap;gap:6px}
.suggestions{display:flex;flex-wrap:wrap;gap:6px;padding:0 12px 8px}
.suggestions:empty{display:none}
.suggestions button{border:1px solid var(--primary);background:transparent;color:var(--text);border-radius:16px;padding:5px 11px;font-size:13px;text-align:left}
form{display:flex;gap:8px;align-items:flex-end;padding:10px 12px;border-top:1px solid rgba(127,127,127,.25);margin:0}
textarea{flex:1;resize:none;font:inherit;color:var(--text);background:var(--bg);border:1px solid rgba(127,127,127,.45);border-radius:10px;padding:8px 10px;min-height:38px;max-height:120px;line-height:1.4;margin:0}
.send{border:0;border-radius:10px;background:var(--primary);color:var(--on-primary);height:38px;min-width:38px;padding:0 12px;display:flex;align-items:center;justify-content:center}
.send svg{width:18px;height:18px;fill:currentColor}
@media (max-width:480px){.panel,.left .panel{inset:0;width:100%;height:100%;max-height:none;border-radius:0}}
@media (prefers-reduced-motion:no-preference){.panel{animation:pop .16s ease-out}@keyframes pop{from{opacity:0;transform:translateY(8px)}}}
`;
