/** The formats a knowledge document may be in. */
export const KNOWLEDGE_DOCUMENT_FORMATS = ['pdf', 'docx', 'html', 'markdown', 'text', 'csv'] as const;
export type KnowledgeDocumentFormat = (typeof KNOWLEDGE_DOCUMENT_FORMATS)[number];

/** The file name endings of each format (the API's detection and the dashboard's upload check share them). */
export const KNOWLEDGE_FORMAT_BY_EXTENSION: Readonly<Record<string, KnowledgeDocumentFormat>> = {
  pdf: 'pdf',
  docx: 'docx',
  html: 'html',
  htm: 'html',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  text: 'text',
  csv: 'csv',
};

/** The media types of each format (a generic or missing one leaves it to the name and the bytes). */
export const KNOWLEDGE_FORMAT_BY_MEDIA_TYPE: Readonly<Record<string, KnowledgeDocumentFormat>> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/csv': 'csv',
};
