import numpy as np, json, math, sys
sys.path.insert(0,'/tmp/s3')
from minilm import g, ln, erf, tok
vocab=json.load(open('/tmp/s3/pkgs/mini/all_minilm_l6_v2/model/tokenizer.json'))['model']['vocab']
ids=sorted(vocab.values())
inv={v:k for k,v in vocab.items()}
def fwd(batch_ids):
    B,n=batch_ids.shape
    x=g('embeddings.word_embeddings.weight')[batch_ids]+g('embeddings.position_embeddings.weight')[:n]+g('embeddings.token_type_embeddings.weight')[0]
    x=ln(x,g('embeddings.LayerNorm.weight'),g('embeddings.LayerNorm.bias'))
    H=12;dh=32
    for l in range(6):
        p=f'encoder.layer.{l}.'
        def lin(t,name): return t@g(p+name+'.weight').T+g(p+name+'.bias')
        q=lin(x,'attention.self.query').reshape(B,n,H,dh).transpose(0,2,1,3)
        k=lin(x,'attention.self.key').reshape(B,n,H,dh).transpose(0,2,1,3)
        v=lin(x,'attention.self.value').reshape(B,n,H,dh).transpose(0,2,1,3)
        a=q@k.transpose(0,1,3,2)/math.sqrt(dh); a=np.exp(a-a.max(-1,keepdims=True)); a/=a.sum(-1,keepdims=True)
        o=(a@v).transpose(0,2,1,3).reshape(B,n,384)
        x=ln(lin(o,'attention.output.dense')+x,g(p+'attention.output.LayerNorm.weight'),g(p+'attention.output.LayerNorm.bias'))
        h=lin(x,'intermediate.dense'); h=0.5*h*(1+erf(h/np.sqrt(2)))
        x=ln(lin(h,'output.dense')+x,g(p+'output.LayerNorm.weight'),g(p+'output.LayerNorm.bias'))
    return x.mean(1)
CLS,SEP=vocab['[CLS]'],vocab['[SEP]']
out=np.zeros((len(ids),384),np.float32)
for s in range(0,len(ids),512):
    b=np.array([[CLS,i,SEP] for i in ids[s:s+512]])
    out[s:s+512]=fwd(b)
np.save('/tmp/s3/tokvec.npy',out)
print(out.shape)
