import type { OperationExample } from '../../openapi/examples';

const DOMAIN_ID = 'dom_01KAQ9A1B2C3D4E5F6G7H8J9K0';
const CREATED = '2026-11-21T10:00:00.000Z';
const CHECKED = '2026-11-21T10:05:00.000Z';
// A real 2048-bit key's SPKI is 392 base64 characters; shortened here.
const PUBLIC_KEY = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQAB';
const DKIM_VALUE = `v=DKIM1; k=rsa; p=${PUBLIC_KEY}`;

const pendingDomain = {
  object: 'domain',
  id: DOMAIN_ID,
  name: 'acme.example',
  status: 'pending',
  returnPathDomain: 'bounces.acme.example',
  dkimSelector: 'mr3f9a0c21de',
  claimedByAnotherProject: false,
  records: [
    { record: 'verification', type: 'TXT', name: '_mailroom.acme.example', value: 'mailroom-verification=Q2xq1sN8o7kX5bV3rT9yWm4Zp6Lc0Hd2', required: true, status: 'pending' },
    {
      record: 'dkim',
      type: 'TXT',
      name: 'mr3f9a0c21de._domainkey.acme.example',
      value: DKIM_VALUE,
      splitValue: `"${DKIM_VALUE.slice(0, 255)}" "${DKIM_VALUE.slice(255)}"`,
      selector: 'mr3f9a0c21de',
      keyState: 'current',
      required: true,
      status: 'pending',
    },
    { record: 'return_path_mx', type: 'MX', name: 'bounces.acme.example', value: 'mx.mail.example.com', priority: 10, required: true, status: 'pending' },
    { record: 'return_path_spf', type: 'TXT', name: 'bounces.acme.example', value: 'v=spf1 ip4:192.0.2.10 -all', required: true, status: 'pending' },
    { record: 'dmarc', type: 'TXT', name: '_dmarc.acme.example', value: 'v=DMARC1; p=none; adkim=r; aspf=r', required: false, status: 'pending' },
  ],
  createdAt: CREATED,
  verifiedAt: null,
  lastCheckedAt: null,
  nextCheckAt: CREATED,
};

const verifiedDomain = {
  ...pendingDomain,
  status: 'verified',
  records: pendingDomain.records.map((r) => ({ ...r, status: 'verified', found: [r.type === 'MX' ? `10 ${r.value}` : r.value], checkedAt: CHECKED })),
  verifiedAt: CHECKED,
  lastCheckedAt: CHECKED,
  nextCheckAt: '2026-11-21T16:05:00.000Z',
};

/** Examples of the domain operations, merged into the OpenAPI document's. */
export const DOMAIN_EXAMPLES: Record<string, OperationExample> = {
  createDomain: { request: { name: 'acme.example' }, response: pendingDomain },
  listDomains: { query: { limit: '20' }, response: { object: 'list', data: [verifiedDomain], hasMore: false } },
  getDomain: { params: { id: DOMAIN_ID }, response: verifiedDomain },
  deleteDomain: { params: { id: DOMAIN_ID }, response: { object: 'domain', id: DOMAIN_ID, deleted: true } },
  verifyDomain: { params: { id: DOMAIN_ID }, response: verifiedDomain },
  rotateDomainDkim: {
    params: { id: DOMAIN_ID },
    response: {
      ...verifiedDomain,
      records: [
        ...verifiedDomain.records,
        { record: 'dkim', type: 'TXT', name: 'mr7b2e4f90aa._domainkey.acme.example', value: DKIM_VALUE, splitValue: `"${DKIM_VALUE.slice(0, 255)}" "${DKIM_VALUE.slice(255)}"`, selector: 'mr7b2e4f90aa', keyState: 'next', required: false, status: 'pending' },
      ],
    },
  },
};
