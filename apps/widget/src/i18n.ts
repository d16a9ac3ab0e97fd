/** The widget's own strings, in English and Chinese. `{x}` is replaced by `t(key, { x })`. */
const en = {
  open: 'Open chat',
  close: 'Close chat',
  newConversation: 'New conversation',
  title: 'Chat',
  greeting: 'Hi! How can I help you today?',
  placeholder: 'Type a message…',
  inputLabel: 'Message',
  send: 'Send',
  stop: 'Stop',
  you: 'You',
  assistant: 'Assistant',
  messages: 'Messages',
  suggestions: 'Suggested questions',
  quickReplies: 'Quick replies',
  thinking: 'The assistant is typing…',
  reconnecting: 'Connection lost, reconnecting…',
  offline: 'You are offline. The chat reconnects when the network is back.',
  errOrigin: 'This chat is not enabled on this website.',
  errOriginHint: 'The site owner needs to allow {origin} for this chat key.',
  errRate: 'Too many messages right now. Please wait {seconds} seconds and try again.',
  errNetwork: 'Cannot reach the assistant. Check your connection and try again.',
  errConfig: 'This chat is not set up correctly.',
  errUnavailable: 'The assistant is not available right now. Please try again later.',
  errFailed: 'Sorry, something went wrong while answering. Please try again.',
  errBusy: 'The assistant is still answering; please wait.',
  retry: 'Try again',
  stopped: 'Stopped.',
  toolUsed: 'Used {name}',
  runTitle: 'The assistant wants to run “{name}” in your browser',
  approveTitle: 'The assistant wants to use “{name}”',
  run: 'Run',
  approve: 'Approve',
  decline: 'Decline',
  running: 'Running…',
  declined: 'Declined',
  approved: 'Approved',
  answered: 'Answered',
  result: 'Result: {value}',
  failed: 'Failed: {value}',
  noHandler: 'This page cannot run the tool “{name}”.',
  declinedOutput: 'The user declined to run this tool.',
  loadImage: 'Load image from {host}',
  sources: 'Sources',
  sourcePage: 'page {page}',
};

type Strings = typeof en;

const zh: Strings = {
  open: '打开聊天',
  close: '关闭聊天',
  newConversation: '新对话',
  title: '聊天',
  greeting: '你好！今天有什么可以帮你？',
  placeholder: '输入消息…',
  inputLabel: '消息',
  send: '发送',
  stop: '停止',
  you: '你',
  assistant: '助手',
  messages: '消息',
  suggestions: '推荐问题',
  quickReplies: '快捷回复',
  thinking: '助手正在输入…',
  reconnecting: '连接中断，正在重新连接…',
  offline: '你已离线，网络恢复后会自动重新连接。',
  errOrigin: '此网站未启用该聊天。',
  errOriginHint: '网站管理员需要为此聊天的可公开密钥允许 {origin}。',
  errRate: '消息太多了，请等待 {seconds} 秒后再试。',
  errNetwork: '无法连接到助手，请检查网络后重试。',
  errConfig: '此聊天的配置不正确。',
  errUnavailable: '助手暂时不可用，请稍后再试。',
  errFailed: '抱歉，回答时出了点问题，请重试。',
  errBusy: '助手仍在回答，请稍候。',
  retry: '重试',
  stopped: '已停止。',
  toolUsed: '已使用 {name}',
  runTitle: '助手想在你的浏览器中运行“{name}”',
  approveTitle: '助手想使用“{name}”',
  run: '运行',
  approve: '批准',
  decline: '拒绝',
  running: '运行中…',
  declined: '已拒绝',
  approved: '已批准',
  answered: '已回答',
  result: '结果：{value}',
  failed: '失败：{value}',
  noHandler: '此页面无法运行工具“{name}”。',
  declinedOutput: 'The user declined to run this tool.',
  loadImage: '加载来自 {host} 的图片',
  sources: '来源',
  sourcePage: '第 {page} 页',
};

export type Lang = 'en' | 'zh';
export type StringKey = keyof Strings;
export type Translate = (key: StringKey, vars?: Record<string, string | number>) => string;

export function pickLang(...candidates: Array<string | null | undefined>): Lang {
  for (const c of candidates) {
    if (!c) continue;
    if (/^zh|chinese|中文|mandarin/i.test(c)) return 'zh';
    if (/^en|english/i.test(c)) return 'en';
  }
  return 'en';
}

export function translator(lang: Lang): Translate {
  const table = lang === 'zh' ? zh : en;
  return (key, vars) => table[key].replace(/\{(\w+)\}/g, (_, name: string) => String(vars?.[name] ?? ''));
}
