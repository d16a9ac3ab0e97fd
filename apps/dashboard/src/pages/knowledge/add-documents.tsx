import type { KnowledgeDocument } from '@agentry/contract/schemas';
import { useState } from 'react';
import { Tabs } from '../../components/tabs.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { AddUrlForm } from './add-url-form.tsx';
import { PasteTextForm } from './paste-text-form.tsx';
import { UploadZone } from './upload-zone.tsx';

const WAYS = ['upload', 'url', 'text'] as const;
type Way = (typeof WAYS)[number];

/** The three ways in: files (dropped or picked), a web page or site, typed or pasted text. */
export function AddDocuments({
  baseId,
  documents,
  onAdded,
}: {
  baseId: string;
  documents: KnowledgeDocument[];
  onAdded: () => Promise<void>;
}) {
  const { t } = useI18n();
  const [way, setWay] = useState<Way>('upload');
  return (
    <section className="card" aria-labelledby="add-documents-title">
      <h2 id="add-documents-title">{t('knowledge.addTitle')}</h2>
      <Tabs
        label={t('knowledge.addTitle')}
        tabs={WAYS.map((id) => ({ id, label: t(`knowledge.add.${id}`) }))}
        active={way}
        onSelect={setWay}
      />
      <div role="tabpanel" id={`panel-${way}`} aria-labelledby={`tab-${way}`}>
        {/* The upload list stays mounted while another tab is open: its uploads go on. */}
        <div hidden={way !== 'upload'}>
          <UploadZone baseId={baseId} documents={documents} onUploaded={onAdded} />
        </div>
        {way === 'url' ? <AddUrlForm baseId={baseId} onAdded={onAdded} /> : null}
        {way === 'text' ? <PasteTextForm baseId={baseId} onAdded={onAdded} /> : null}
      </div>
    </section>
  );
}
