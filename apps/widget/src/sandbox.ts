/**
 * The built-in `browser_js_eval` tool: runs model-written code in a throw-away iframe with
 * `sandbox="allow-scripts"` (an opaque origin: no access to the host page, its cookies, storage
 * or DOM), inside a Web Worker there when the browser allows one (so even an endless loop cannot
 * freeze the page). The result comes back by postMessage; after 5 s the iframe is removed.
 */
const WORKER = `onmessage=async e=>{let r;try{let v=(0,eval)(e.data);if(v&&typeof v.then=="function")v=await v;try{r={ok:true,value:JSON.parse(JSON.stringify(v===undefined?null:v))}}catch{r={ok:true,value:String(v)}}}catch(x){r={ok:false,error:String(x&&x.message||x)}}postMessage(r)}`;

const FRAME = `<!doctype html><meta charset="utf-8"><script>
const W=${JSON.stringify(WORKER)};
addEventListener('message',async e=>{
  const d=e.data||{};const send=r=>parent.postMessage(Object.assign({agentryEval:d.id},r),'*');
  try{const w=new Worker(URL.createObjectURL(new Blob([W],{type:'text/javascript'})));
    w.onmessage=m=>send(m.data);w.onerror=x=>{x.preventDefault();send({ok:false,error:String(x.message||'error')})};w.postMessage(d.code);return}catch{}
  try{let v=(0,eval)(d.code);if(v&&typeof v.then=='function')v=await v;let value;try{value=JSON.parse(JSON.stringify(v===undefined?null:v))}catch{value=String(v)}send({ok:true,value})}
  catch(x){send({ok:false,error:String(x&&x.message||x)})}
});
</script>`;

export const EVAL_TIMEOUT_MS = 5000;

export interface EvalResult {
  ok: boolean;
  value?: unknown;
  error?: string;
}

export function evalInSandbox(
  code: string,
  parent: Node & ParentNode,
  timeoutMs = EVAL_TIMEOUT_MS,
): Promise<EvalResult> {
  const id = Math.random().toString(36).slice(2);
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('aria-hidden', 'true');
  frame.tabIndex = -1;
  frame.style.cssText = 'position:absolute;width:0;height:0;border:0;visibility:hidden';
  frame.srcdoc = FRAME;
  return new Promise<EvalResult>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (result: EvalResult) => {
      clearTimeout(timer);
      removeEventListener('message', onMessage);
      frame.remove();
      resolve(result);
    };
    const onMessage = (event: MessageEvent) => {
      if (event.source !== frame.contentWindow || event.data?.agentryEval !== id) return;
      done({ ok: event.data.ok === true, value: event.data.value, error: event.data.error });
    };
    addEventListener('message', onMessage);
    frame.addEventListener('load', () => frame.contentWindow?.postMessage({ id, code }, '*'));
    timer = setTimeout(
      () => done({ ok: false, error: `The code did not finish within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
    parent.appendChild(frame);
  });
}
