2🙂 ümlautB
elements_2